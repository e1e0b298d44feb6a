/**
 * A revision's disruption summary (issue 39): the configurator works out, once per revision, what
 * it does to the hosts against the revision the nodes were on (the agent's host plan, as
 * `kubectl nodenet diff --host` shows it) and records it in `status.disruption`, which the
 * planner's status writes keep. RolloutPolicy spec.disruptive rolls a revision that disruptive
 * under its lower limit, a milder one under the normal limit.
 */
import type { NetworkConfigRevision, VRFRouteConfiguration } from '@nodenet/api';
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

const tenant = (vni: number): VRFRouteConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'VRFRouteConfiguration',
  metadata: { name: 'tenant' },
  spec: { vrf: 'tenant', vni, seq: 10 },
});

const complete = (n: number): Promise<NetworkConfigRevision> =>
  waitFor(`revision ${n} complete`, async () => {
    const r = await revisionNumbered(f, n);
    return isComplete(r) ? r : undefined;
  });

const disruptiveCondition = (r: NetworkConfigRevision) =>
  r.status?.conditions?.find((c) => c.type === 'Disruptive');

describe('RolloutPolicy spec.disruptive', () => {
  it('a vrf-rebuild change goes one node at a time, a none change under the normal limit', async () => {
    // Agents take 400 ms per revision: nodes started together overlap.
    await fleetOnRevision1(
      f,
      6,
      { updateLimit: { kind: 'count', count: 3 } },
      { later: () => ({ kind: 'ok', delayMs: 400 }) },
    );
    await f.clients.rolloutPolicy.create({
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'RolloutPolicy',
      metadata: { name: 'default' },
      spec: { disruptive: { from: 'vrf-rebuild' } },
    });
    /** The most nodes in progress at once from the recorder's event `from` on. */
    const mostAtOnce = (from: number): number =>
      Math.max(0, ...f.recorder.events.slice(from).map((e) => e.inProgress));

    // A new VRF: new devices nobody uses yet (none), three at a time.
    let mark = f.recorder.events.length;
    await f.clients.vrf.create(tenant(5000));
    const r2 = await complete(2);
    expect(r2.status?.disruption?.worst).toBe('none');
    expect(mostAtOnce(mark)).toBe(3);
    expect(disruptiveCondition(r2)).toMatchObject({ status: 'False', reason: 'MilderThanKnob' });

    // Its L3 VNI changes: the VRF's devices are re-created (vrf-rebuild), one at a time.
    mark = f.recorder.events.length;
    const current = (await f.clients.vrf.get('tenant'))!;
    await f.clients.vrf.update({ ...current, spec: { ...current.spec, vni: 5001 } });
    const r3 = await complete(3);
    expect(r3.status?.disruption?.worst).toBe('vrf-rebuild');
    expect(mostAtOnce(mark)).toBe(1);
    expect(disruptiveCondition(r3)).toMatchObject({
      status: 'True',
      reason: 'DisruptiveChange',
      message:
        'disruption vrf-rebuild (RolloutPolicy default spec.disruptive.from=vrf-rebuild): update limit 1 instead of 3',
    });
  });
});
