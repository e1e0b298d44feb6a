/**
 * Unchanged nodes move for free (issue 26): a change limited to one rack (a Layer-2 network with a
 * node selector) rolls out gradually on that rack only; every other node moves to the revision
 * without a slot, its agent handed a spec that changes nothing on its host.
 */
import { describe, expect, it } from 'vitest';
import { MOVE_ANNOTATION, type NodeConfig } from '@nodenet/api';
import {
  fleetOnRevision1,
  isComplete,
  layer2,
  nodeName,
  revisionNumbered,
  useFleet,
  waitFor,
} from './harness.js';

const f = useFleet();
const RACK_1 = [0, 1].map(nodeName);
const OTHERS = [2, 3, 4, 5, 6, 7].map(nodeName);
const rackOf = (i: number): Record<string, string> => ({ rack: i < 2 ? 'r1' : 'r2' });
const onRack1 = (mtu: number) => layer2('red', 200, { mtu, nodeSelector: { matchLabels: { rack: 'r1' } } });

/** The moves each node's NodeConfig was seen with for a revision hash. */
const movesTo = (node: string, hash: string): string[] => [
  ...new Set(
    f.recorder.events
      .filter((e) => e.nc.metadata.name === node && e.nc.spec.revision === hash)
      .map((e) => e.nc.metadata.annotations?.[MOVE_ANNOTATION] ?? ''),
  ),
];

describe('a change that touches one rack', () => {
  it('moves the other nodes without a slot; a fault on a touched node still halts the rollout; the untouched nodes never enter a confirm window', async () => {
    // Limit 1, and each touched node stays 400 ms in its "confirm window" (the agent's delay).
    await fleetOnRevision1(
      f,
      8,
      { updateLimit: { kind: 'count', count: 1 } },
      { later: () => ({ kind: 'ok', delayMs: 400 }), labels: rackOf },
    );
    const agents = f.agents!;
    const handedBefore = agents.handed.length;

    await f.clients.layer2.create(onRack1(1500));
    const r2 = await waitFor('revision 2 complete', async () => {
      const r = await revisionNumbered(f, 2);
      return isComplete(r) ? r : undefined;
    });
    expect(r2.status?.unchanged).toBe(OTHERS.length);
    for (const n of OTHERS) expect(movesTo(n, r2.spec.hash)).toEqual(['unchanged']);
    for (const n of RACK_1) expect(movesTo(n, r2.spec.hash)).toEqual(['forward']);
    // Only the rack's nodes were ever in progress, one at a time; the others reported at once.
    expect(f.recorder.maxInProgressExcluding(OTHERS)).toBeLessThanOrEqual(1);
    // The untouched nodes were all moved while the first touched node still held the one slot.
    const assignedAt = (n: string): number =>
      f.recorder.events.find((e) => e.nc.metadata.name === n && e.nc.spec.revision === r2.spec.hash)?.at ??
      Infinity;
    const secondTouched = Math.max(...RACK_1.map(assignedAt));
    for (const n of OTHERS) expect(assignedAt(n)).toBeLessThan(secondTouched);

    // A fault on a touched node halts the next change of the rack, and everything returns to revision 2.
    agents.behaviour = (node) =>
      node === nodeName(1)
        ? { kind: 'invalid', delayMs: 400, message: 'uplink lost' }
        : { kind: 'ok', delayMs: 400 };
    await f.clients.layer2.mergePatch('red', { spec: { mtu: 9000 } });
    const r3 = await waitFor('revision 3 invalid', async () => {
      const r = await revisionNumbered(f, 3);
      return r?.status?.isInvalid ? r : undefined;
    });
    expect(r3.status?.failedNodes?.map((x) => x.node)).toEqual([nodeName(1)]);
    await waitFor('every node back on revision 2', async () => {
      const ncs: NodeConfig[] = (await f.clients.nodeConfig.list()).items;
      return ncs.length === 8 &&
        ncs.every(
          (nc) => nc.spec.revision === r2.spec.hash && nc.status?.lastAppliedRevision === r2.spec.hash,
        )
        ? true
        : undefined;
    });

    // The untouched nodes' agents were never handed a spec that changes their host.
    const handed = agents.handed.slice(handedBefore);
    expect(handed.filter((h) => OTHERS.includes(h.node) && h.changed)).toEqual([]);
    expect(handed.filter((h) => RACK_1.includes(h.node) && h.changed).length).toBeGreaterThan(0);
  });
});
