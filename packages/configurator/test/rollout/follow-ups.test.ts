/**
 * Issue 35: a write of a suspect's input made while its change was in flight (before the
 * invalidation) that still carries the change is the same change: the invalidation records its
 * generation (status.followUpGenerations) and the build holds it back. A write after the
 * invalidation is a new change (docs/rollout.md, precondition 2). Seed 35 of the full generator
 * found the escape: a same-content write 2 s after the bad one got a fresh budget.
 */
import type { Inputs, Layer2NetworkConfiguration, NetworkConfigRevision } from '@nodenet/api';
import { buildConfig, inputGenerations } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { buildRevision, plan } from '@nodenet/configurator';
import { done, input, invalid, nc, node, ofType } from './fixtures.js';

const NOW = Date.parse('2025-01-01T00:00:00Z');
const BLUE = 'Layer2NetworkConfiguration/blue';
const l2 = (generation: number, mtu: number, zone?: string): Layer2NetworkConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'Layer2NetworkConfiguration',
  metadata: { name: 'blue', generation },
  spec: { id: 100, vni: 10100, mtu, ...(zone ? { nodeSelector: { matchLabels: { zone } } } : {}) },
});
const red = (generation: number): Layer2NetworkConfiguration => ({
  ...l2(generation, 1500),
  metadata: { name: 'red', generation },
  spec: { id: 200, vni: 10200, mtu: 1500 },
});
const inputs = (...layer2: Layer2NetworkConfiguration[]): Inputs => ({ vrf: [], layer2, routingTable: [] });
function revision(
  number: number,
  objs: Layer2NetworkConfiguration[],
  changed: string[],
  status?: NetworkConfigRevision['status'],
): NetworkConfigRevision {
  const { config, hash } = buildConfig(inputs(...objs));
  return {
    apiVersion: 'network.nodenet.io/v1alpha1',
    kind: 'NetworkConfigRevision',
    metadata: { name: `rev-${number}` },
    spec: { config, hash, number, changedInputs: changed },
    ...(status ? { status } : {}),
  };
}

// Revision 1 (blue mtu 1500) completed; revision 2 (blue@2, mtu 9000) is rolling out.
const good = revision(1, [l2(1, 1500)], [`${BLUE}@1`], { completedAt: '2025-01-01T00:00:00Z' });
const rolling = revision(2, [l2(2, 9000)], [`${BLUE}@2`]);

describe('the pass that invalidates a revision records the follow-up writes of its suspects', () => {
  const invalidating = (blue: Layer2NetworkConfiguration) =>
    plan({
      ...input({
        revisions: [rolling, good],
        nodes: [node('n00'), node('n01')],
        nodeConfigs: [
          nc('n00', rolling.spec.hash, { number: 2, move: 'forward', status: invalid(good.spec.hash) }),
          nc('n01', good.spec.hash, { number: 1, status: done(good.spec.hash) }),
        ],
      }),
      inputGenerations: () => inputGenerations(inputs(blue)),
    });

  it('blue written again (generation 3) while revision 2 was in flight: blue@3 is recorded', () => {
    const p = invalidating(l2(3, 9000));
    expect(ofType(p.actions, 'invalidate').map((a) => a.revision)).toEqual(['rev-2']);
    const st = p.statusUpdates.find((u) => u.revision === 'rev-2')?.status;
    expect(st?.isInvalid).toBe(true);
    expect(st?.followUpGenerations).toEqual([`${BLUE}@3`]);
  });

  it('no write since the suspect: nothing is recorded (its own generation is held anyway)', () => {
    const st = invalidating(l2(2, 9000)).statusUpdates.find((u) => u.revision === 'rev-2')?.status;
    expect(st?.isInvalid).toBe(true);
    expect(st).not.toHaveProperty('followUpGenerations');
  });
});

describe('the build holds a recorded follow-up back while it still carries the change', () => {
  const failed = (status: NonNullable<NetworkConfigRevision['status']>): NetworkConfigRevision => ({
    ...rolling,
    status: {
      isInvalid: true,
      failedNodes: [{ node: 'n00', message: 'cut off', at: '2025-01-01T00:00:00Z' }],
      ...status,
    },
  });
  const blueBuilt = (blue: Layer2NetworkConfiguration, bad: NetworkConfigRevision) => {
    // An unrelated merge (red) makes the build create a revision either way.
    const r = buildRevision(inputs(blue, red(1)), [bad, good], NOW);
    if (r.decision.action !== 'create') throw new Error(r.decision.reason);
    return r.decision.revision.spec.config.layer2.find((e) => e.name === 'blue');
  };
  const recorded = failed({ followUpGenerations: [`${BLUE}@3`] });

  it('the same content written again before the invalidation (blue@3, listed) stays held: mtu 1500', () => {
    expect(blueBuilt(l2(3, 9000), recorded)?.mtu).toBe(1500);
  });

  it('the bad MTU with its selector changed (a widened zone) still carries the change: held', () => {
    const zoned = failed({ followUpGenerations: [`${BLUE}@3`] });
    expect(blueBuilt(l2(3, 9000, 'z1'), zoned)?.mtu).toBe(1500);
  });

  it('a follow-up that no longer carries the change (another MTU) is released', () => {
    expect(blueBuilt(l2(3, 1400), recorded)?.mtu).toBe(1400);
  });

  it('a write after the invalidation (blue@4, not listed) is a new change: released', () => {
    expect(blueBuilt(l2(4, 9000), recorded)?.mtu).toBe(9000);
  });

  it('a revision invalidated without a record releases any later generation (as before)', () => {
    expect(blueBuilt(l2(3, 9000), failed({}))?.mtu).toBe(9000);
  });

  it('with follow-ups omitted from the list, any later generation that carries the change is held', () => {
    const omitted = failed({ followUpGenerationsOmitted: 1 });
    expect(blueBuilt(l2(7, 9000), omitted)?.mtu).toBe(1500);
    expect(blueBuilt(l2(7, 1400), omitted)?.mtu).toBe(1400);
  });
});
