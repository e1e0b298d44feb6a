/**
 * A revision's disruption summary (issue 39): the configurator works out, once per revision, what
 * it does to the hosts against the revision the nodes were on (the agent's host plan, as
 * `kubectl nodenet diff --host` shows it) and records it in `status.disruption`, which the
 * planner's status writes keep.
 */
import { describe, expect, it } from 'vitest';
import { fleetOnRevision1, isComplete, layer2, revisionNumbered, useFleet, waitFor } from './harness.js';

const f = useFleet();
const rackOf = (i: number): Record<string, string> => ({ rack: i < 2 ? 'r1' : 'r2' });

describe('status.disruption', () => {
  it('records the worst class and the nodes per class of each revision, and keeps them', async () => {
    const r1 = await fleetOnRevision1(f, 4, {}, { labels: rackOf });
    expect(r1.status?.disruption).toEqual({ worst: 'none', nodes: { none: 4 } });

    // A network on rack r1: new devices there, nothing elsewhere.
    const red = layer2('red', 200, { nodeSelector: { matchLabels: { rack: 'r1' } } });
    await f.clients.layer2.create(red);
    const r2 = await waitFor('revision 2 complete', async () => {
      const r = await revisionNumbered(f, 2);
      return isComplete(r) ? r : undefined;
    });
    expect(r2.status?.disruption).toEqual({
      worst: 'none',
      from: r1.metadata.name,
      nodes: { unchanged: 2, none: 2 },
    });

    // Its VNI changes: its VXLAN goes and a new one comes on the rack's nodes.
    const current = (await f.clients.layer2.get('red'))!;
    await f.clients.layer2.update({ ...current, spec: { ...current.spec, vni: current.spec.vni + 1 } });
    const r3 = await waitFor('revision 3 complete', async () => {
      const r = await revisionNumbered(f, 3);
      return isComplete(r) ? r : undefined;
    });
    expect(r3.status?.disruption).toEqual({
      worst: 'l2-interruption',
      from: r2.metadata.name,
      nodes: { unchanged: 2, 'l2-interruption': 2 },
    });
  });
});
