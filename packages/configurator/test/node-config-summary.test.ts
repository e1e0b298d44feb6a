/**
 * What the configurator caches of a NodeConfig (node-config-summary.ts) and how many NodeConfig
 * writes it keeps in flight (write-budget.ts): both keep its memory independent of the node count
 * at the size budget (#25).
 */
import {
  SPEC_HASH_ANNOTATION,
  hashConfig,
  peeringCounts,
  type NetworkConfigRevision,
  type NodeConfig,
} from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BUDGET,
  IN_FLIGHT_SPEC_BYTES,
  assignConcurrency,
  factsOf,
  nodeConfigFor,
  nodeConfigSummary,
  nodeSpecHash,
} from '@nodenet/configurator';

const vrf = (i: number): NodeConfig['spec']['vrf'][number] => ({
  vrf: `t${i}`,
  vni: 3000 + i,
  seq: 10,
  routeTarget: `65000:${3000 + i}`,
  import: [{ cidr: `10.${i}.0.0/16`, seq: 1, action: 'permit' }],
  export: [],
  aggregate: [],
  mtu: 9000,
  name: `v${i}`,
});

const revision = (config: NetworkConfigRevision['spec']['config'], hash: string): NetworkConfigRevision => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'NetworkConfigRevision',
  metadata: { name: `r-${hash.slice(0, 8)}`, uid: 'u1' },
  spec: { number: 1, hash, config },
});

const rev = revision({ vrf: [vrf(1), vrf(2)], layer2: [], routingTable: [] }, 'a'.repeat(64));
const node = { metadata: { name: 'n1', uid: 'n1-uid', labels: {} } };
const spec = { revision: rev.spec.hash, vrf: rev.spec.config.vrf, layer2: [], routingTable: [] };
const written: NodeConfig = {
  ...nodeConfigFor(rev, node, { spec, move: 'forward', now: 0, identity: 'me' }),
  status: { configStatus: 'provisioned', lastAppliedRevision: rev.spec.hash },
};
written.metadata.resourceVersion = '42';

describe('nodeConfigSummary', () => {
  it('keeps metadata, status and spec.revision; empties the spec lists', () => {
    const s = nodeConfigSummary(written);
    expect(s.metadata).toEqual(written.metadata);
    expect(s.status).toEqual(written.status);
    expect(s.spec).toEqual({ revision: rev.spec.hash, vrf: [], layer2: [], routingTable: [] });
  });

  it("keeps each peering's name and peers, so the BGPPeering status counts read the same off it", () => {
    const peered: NodeConfig = {
      ...written,
      spec: {
        ...spec,
        bgpPeering: [
          {
            name: 'workload',
            vrf: 't1',
            listenRanges: ['10.8.0.0/24'],
            neighbors: [],
            remoteAS: 'external',
            addressFamilies: ['ipv4'],
            import: [{ cidr: '10.96.0.0/12', seq: 10, action: 'permit', le: 32 }],
            export: [],
            importCommunities: ['65000:1'],
          },
        ],
      },
      status: {
        ...written.status!,
        observed: { bgpSessions: [{ vrf: 'vr.t1', peer: '10.8.0.7', state: 'Established' }] },
      } as NodeConfig['status'],
    };
    const s = nodeConfigSummary(peered);
    expect(s.spec.bgpPeering?.[0]).toMatchObject({ name: 'workload', import: [], importCommunities: [] });
    expect(peeringCounts([s])).toEqual(peeringCounts([peered]));
    expect(peeringCounts([s]).get('workload')).toEqual({ nodes: 1, established: 1 });
  });

  it('the planner reads the same facts off the summary as off the full object', () => {
    expect(factsOf(nodeConfigSummary(written))).toEqual(factsOf(written));
  });

  it('a NodeConfig without the spec-hash annotation gets it from its full spec', () => {
    const bare: NodeConfig = { ...written, metadata: { name: 'n1', resourceVersion: '43' } };
    const s = nodeConfigSummary(bare);
    expect(s.metadata.annotations?.[SPEC_HASH_ANNOTATION]).toBe(hashConfig(spec));
    expect(factsOf(s).specHash).toBe(nodeSpecHash(spec));
  });

  it('a summary passed again (a fed-back write) is returned as it is', () => {
    const s = nodeConfigSummary(written);
    expect(nodeConfigSummary(s)).toBe(s);
  });
});

describe('assignConcurrency', () => {
  it('small configs keep the full write concurrency', () => {
    expect(assignConcurrency([rev], 64)).toBe(64);
  });

  it('configs at the size budget: spec bytes in flight stay within IN_FLIGHT_SPEC_BYTES, at least one write', () => {
    const big = revision(
      {
        vrf: Array.from({ length: 12_000 }, (_, i) => vrf(i)),
        layer2: [],
        routingTable: [],
      },
      'b'.repeat(64),
    );
    const bytes = Buffer.byteLength(JSON.stringify(big.spec.config));
    expect(bytes).toBeGreaterThan(DEFAULT_BUDGET.maxConfigBytes / 2);
    const n = assignConcurrency([rev, big], 64);
    expect(n).toBeGreaterThanOrEqual(1);
    expect(n * bytes).toBeLessThanOrEqual(IN_FLIGHT_SPEC_BYTES);
    expect((n + 1) * bytes).toBeGreaterThan(IN_FLIGHT_SPEC_BYTES);
    expect(assignConcurrency([big], 1)).toBe(1);
  });
});
