/**
 * Loopback addresses in the build: the revision carries the allocation, derived from the newest
 * revision and the Nodes; it stays across revisions and builds by another instance (a leader change:
 * nothing but the revisions is read), a new node gets the lowest free address, a deleted node's
 * address is freed, and an exhausted subnet names the loopback and the nodes on the VRF object.
 */
import {
  nodeConfigSpec,
  type Inputs,
  type NetworkConfigRevision,
  type VRFRouteConfiguration,
} from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { buildRevision } from '@nodenet/configurator';

const NOW = Date.parse('2025-01-01T00:00:00Z');

const vrf = (subnet: string, generation = 1, mtu = 9000): VRFRouteConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'VRFRouteConfiguration',
  metadata: { name: 'tenant', generation },
  spec: { vrf: 'tenant', vni: 5000, seq: 10, mtu, loopbacks: [{ name: 'lo', subnet }] },
});
const inputs = (v: VRFRouteConfiguration): Inputs => ({ vrf: [v], layer2: [], routingTable: [] });
const nodes = (...names: string[]): { name: string; labels: Record<string, string> }[] =>
  names.map((name) => ({ name, labels: {} }));

function build(i: Inputs, revisions: NetworkConfigRevision[], names: string[]): NetworkConfigRevision {
  const r = buildRevision(i, revisions, NOW, { nodes: nodes(...names) });
  if (r.decision.action !== 'create') throw new Error(`no revision: ${r.decision.reason}`);
  return r.decision.revision;
}
const addressOf = (rev: NetworkConfigRevision, node: string): string | undefined =>
  nodeConfigSpec(rev.spec, {}, node).vrf[0]?.loopbackAddresses?.[0]?.address;

describe('loopback addresses in revisions', () => {
  it('keep each node its address across a new revision, free a deleted node, give a new node the lowest free one', () => {
    const r1 = build(inputs(vrf('10.255.0.0/24')), [], ['n1', 'n2', 'n3']);
    expect(['n1', 'n2', 'n3'].map((n) => addressOf(r1, n))).toEqual([
      '10.255.0.1',
      '10.255.0.2',
      '10.255.0.3',
    ]);
    // An unrelated change makes revision 2: the same addresses.
    const r2 = build(inputs(vrf('10.255.0.0/24', 2, 1500)), [r1], ['n1', 'n2', 'n3']);
    expect(r2.spec.number).toBe(2);
    expect(r2.spec.config.loopbackAddresses).toEqual(r1.spec.config.loopbackAddresses);
    // n2's Node is deleted: its address is freed; a node that joins later takes it.
    const r3 = build(inputs(vrf('10.255.0.0/24', 2, 1500)), [r1, r2], ['n1', 'n3']);
    expect(addressOf(r3, 'n2')).toBeUndefined();
    const r4 = build(inputs(vrf('10.255.0.0/24', 2, 1500)), [r1, r2, r3], ['n1', 'n3', 'n9']);
    expect(['n1', 'n3', 'n9'].map((n) => addressOf(r4, n))).toEqual([
      '10.255.0.1',
      '10.255.0.3',
      '10.255.0.2',
    ]);
  });

  it('is what a new leader builds from the revisions alone: the same nodes make no new revision', () => {
    const r1 = build(inputs(vrf('10.255.0.0/24')), [], ['n1', 'n2']);
    const again = buildRevision(inputs(vrf('10.255.0.0/24')), [r1], NOW, { nodes: nodes('n2', 'n1') });
    expect(again.decision.action).toBe('skip');
  });

  it('names the loopback and the nodes without an address when the subnet is exhausted, and keeps the others', () => {
    const r1 = build(inputs(vrf('10.255.0.0/30')), [], ['n1', 'n2']);
    const r = buildRevision(inputs(vrf('10.255.0.0/30', 2, 1500)), [r1], NOW, {
      nodes: nodes('n1', 'n2', 'n3'),
    });
    if (r.decision.action !== 'create') throw new Error('expected a revision');
    expect(addressOf(r.decision.revision, 'n1')).toBe('10.255.0.1');
    expect(addressOf(r.decision.revision, 'n3')).toBeUndefined();
    const cond = r.inputStatusUpdates[0]?.status.conditions?.find((c) => c.type === 'LoopbacksAllocated');
    expect(cond).toMatchObject({ status: 'False', reason: 'SubnetExhausted' });
    expect(cond?.message).toBe(
      'VRFRouteConfiguration tenant: loopback lo of VRF tenant: subnet 10.255.0.0/30 is exhausted; no address for node(s) n3',
    );
  });

  it('waits, keeping the last revision, when the addresses would take the revision over its size budget', () => {
    const r1 = build(inputs(vrf('10.255.0.0/24')), [], ['n1']);
    const many = Array.from({ length: 40 }, (_, i) => `node-${i}`);
    const r = buildRevision(inputs(vrf('10.255.0.0/24')), [r1], NOW, {
      nodes: nodes(...many),
      budget: { maxConfigBytes: 2000, maxFrrLines: 100_000 },
    });
    expect(r.decision.action).toBe('blocked');
    expect(r.decision.action === 'blocked' && r.decision.reason).toMatch(
      /^with every node's loopback addresses the revision would be \d+ bytes, over the limit of 2000 bytes \(--max-revision-bytes\)/,
    );
  });
});
