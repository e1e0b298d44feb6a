/**
 * The revision disruption (issue 39): the summary over a fleet whose nodes each have their own
 * loopback address equals the one planned node by node without stand-ins, for loopbacks that stay,
 * come, go and change, while the plans are computed once per kind of node.
 */
import { describe, expect, it } from 'vitest';
import {
  API_VERSION,
  buildConfig,
  configWithLoopbacks,
  nodeConfigSpec,
  revisionName,
  type Inputs,
  type NetworkConfigRevision,
  type VRFRouteConfiguration,
} from '@nodenet/api';
import { fleetHostPlan, PREVIEW_SETTINGS, sectionsTemplate } from '@nodenet/agent';
import { revisionDisruption } from '../src/build/index.js';
import { LoopbackStandIns } from '../src/build/loopback-classes.js';

const vrf = (loopbacks: { name: string; subnet: string }[]): VRFRouteConfiguration => ({
  apiVersion: API_VERSION,
  kind: 'VRFRouteConfiguration',
  metadata: { name: 'tenant' },
  spec: {
    vrf: 'tenant',
    vni: 5000,
    seq: 10,
    export: [{ cidr: '10.9.0.0/16', seq: 1, action: 'permit' }],
    loopbacks,
  },
});
const nodes = Array.from({ length: 40 }, (_, i) => ({ name: `node-${i}`, labels: { rack: `r${i % 2}` } }));

function revision(n: number, inputs: Inputs, before: NetworkConfigRevision[]): NetworkConfigRevision {
  const { config, hash } = configWithLoopbacks(buildConfig(inputs), before, nodes);
  return {
    apiVersion: API_VERSION,
    kind: 'NetworkConfigRevision',
    metadata: { name: revisionName(n, hash) },
    spec: { config, hash, number: n },
    status: { completedAt: '2026-01-01T00:00:00Z' },
  };
}

const specOf = (r: NetworkConfigRevision, n: { name: string; labels: Record<string, string> }) =>
  nodeConfigSpec({ config: r.spec.config, hash: r.spec.hash }, n.labels, n.name);

/** The counts planned node by node, every pair its own (no stand-ins). */
function plainCounts(from: NetworkConfigRevision, to: NetworkConfigRevision) {
  const plan = fleetHostPlan({
    template: sectionsTemplate(),
    settings: PREVIEW_SETTINGS,
    nodes: nodes.map((n) => ({ node: n.name, previous: specOf(from, n), next: specOf(to, n) })),
  });
  const counts = Object.fromEntries(Object.entries(plan.counts).filter(([, v]) => v > 0));
  return { worst: plan.disruption, counts, distinct: plan.distinctPairs };
}

describe('revision disruption with per-node loopbacks', () => {
  it.each([
    [
      'a loopback added',
      [{ name: 'lo', subnet: '10.255.0.0/24' }],
      [
        { name: 'lo', subnet: '10.255.0.0/24' },
        { name: 'lo6', subnet: 'fd00:ff::/64' },
      ],
    ],
    [
      'a loopback removed',
      [
        { name: 'lo', subnet: '10.255.0.0/24' },
        { name: 'lo6', subnet: 'fd00:ff::/64' },
      ],
      [{ name: 'lo', subnet: '10.255.0.0/24' }],
    ],
    [
      'the subnet changed (every address moves)',
      [{ name: 'lo', subnet: '10.255.0.0/24' }],
      [{ name: 'lo', subnet: '10.254.0.0/24' }],
    ],
  ])(
    '%s: the same worst class as planned node by node, one plan per kind of node',
    (_name, before, after) => {
      const r1 = revision(1, { vrf: [vrf(before)], layer2: [], routingTable: [] }, []);
      const r2 = revision(2, { vrf: [vrf(after)], layer2: [], routingTable: [] }, [r1]);
      const plain = plainCounts(r1, r2);
      expect(plain.distinct).toBe(nodes.length);
      const d = revisionDisruption({ revision: r2, revisions: [r1, r2], nodes, specOf });
      expect(d.worst).toBe(plain.worst);
      expect(d.nodes).toEqual(plain.counts);
      expect(d.from).toBe(r1.metadata.name);
      const standIns = new LoopbackStandIns();
      const pairs = nodes.map((n) => ({ node: n.name, ...standIns.pair(specOf(r1, n), specOf(r2, n)) }));
      const planned = fleetHostPlan({
        template: sectionsTemplate(),
        settings: PREVIEW_SETTINGS,
        nodes: pairs,
      });
      expect(planned.distinctPairs).toBe(1);
    },
  );
});

// Issue 35: the summary is measured against the revision a failure would roll back to (the newest
// valid one that ran well), not the newest completed one: revision 3 built while revision 2 still
// rolls out (provisioned on some nodes, failed by none) changes only what revision 3 adds.
describe('revision disruption against the fallback', () => {
  const lo = [{ name: 'lo', subnet: '10.255.0.0/24' }];
  const lo6 = [...lo, { name: 'lo6', subnet: 'fd00:ff::/64' }];
  const r1 = revision(1, { vrf: [vrf(lo)], layer2: [], routingTable: [] }, []);
  const r2 = {
    ...revision(2, { vrf: [vrf(lo6)], layer2: [], routingTable: [] }, [r1]),
    status: { ranAt: '2026-01-01T00:00:00Z' },
  };
  // Revision 3 has revision 2's content (an unrelated input's change that only other nodes select,
  // say): nothing changes on the hosts that run revision 2.
  const r3 = revision(3, { vrf: [vrf(lo6)], layer2: [], routingTable: [] }, [r1, r2]);

  it('a revision that ran well without completing is what the next one is compared with', () => {
    const d = revisionDisruption({ revision: r3, revisions: [r1, r2, r3], nodes, specOf });
    expect(d.from).toBe(r2.metadata.name);
    expect(d.nodes).toEqual({ unchanged: nodes.length });
    expect(plainCounts(r1, r3).counts).not.toEqual({ unchanged: nodes.length });
  });

  it('a revision some node failed is no fallback: compared with the completed one', () => {
    const failed = { ...r2, status: { ranAt: '2026-01-01T00:00:00Z', failed: 1 } };
    const d = revisionDisruption({ revision: r3, revisions: [r1, failed, r3], nodes, specOf });
    expect(d.from).toBe(r1.metadata.name);
  });
});
