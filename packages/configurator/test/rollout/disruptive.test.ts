/**
 * RolloutPolicy spec.disruptive in the planner (issue 39): a revision whose disruption class is the
 * knob's `from` or worse (or not known yet) rolls under the knob's lower limit, with waves as
 * barriers; a milder one under the normal limit.
 */
import { describe, expect, it } from 'vitest';
import type { DisruptionClass, NetworkConfigRevision } from '@nodenet/api';
import { plan, type DisruptivePolicy } from '@nodenet/configurator';
import { A, B, assigned, completed, done, input, nc, node, nodes, rev } from './fixtures.js';

const KNOB: DisruptivePolicy = {
  from: 'session-reset',
  updateLimit: { kind: 'count', count: 1 },
  waveBarrier: true,
};

/** Revision 2 with the class the configurator recorded (undefined: none recorded yet). */
const desired = (worst: DisruptionClass | undefined): NetworkConfigRevision =>
  rev(2, B, worst ? { status: { disruption: { worst, nodes: {} } } } : {});

/** Ten nodes on revision 1, revision 2 desired, normal limit 4. */
function pass(worst: DisruptionClass | undefined, knob: DisruptivePolicy | null = KNOB) {
  return plan(
    input({
      revisions: [completed(rev(1, A)), desired(worst)],
      nodes: nodes(10),
      nodeConfigs: nodes(10).map((n) => nc(n.name, A, { number: 1, status: done(A) })),
      policy: { updateLimit: { kind: 'count', count: 4 }, ...(knob ? { disruptive: knob } : {}) },
    }),
  );
}

const condition = (p: ReturnType<typeof pass>, revision: string) =>
  p.statusUpdates
    .find((u) => u.revision === revision)
    ?.status.conditions?.find((c) => c.type === 'Disruptive');

describe('RolloutPolicy spec.disruptive', () => {
  it.each([
    ['none', 4],
    ['refilter', 4],
    ['session-reset', 1],
    ['l2-interruption', 1],
    ['vrf-rebuild', 1],
    // Not worked out yet: counts as disruptive (the knob only slows a rollout down).
    [undefined, 1],
  ] as const)('a %s revision starts %i node(s) at once', (worst, starts) => {
    const p = pass(worst);
    expect(assigned(p.actions)).toHaveLength(starts);
    expect(p.limit).toBe(starts);
  });

  it('without the knob every class rolls under the normal limit, and no condition is written', () => {
    const p = pass('vrf-rebuild', null);
    expect(assigned(p.actions)).toHaveLength(4);
    expect(condition(p, desired(undefined).metadata.name)).toBeUndefined();
  });

  it('the knob never raises the limit: a cap above the normal limit leaves it', () => {
    const p = pass('vrf-rebuild', { ...KNOB, updateLimit: { kind: 'count', count: 9 } });
    expect(assigned(p.actions)).toHaveLength(4);
  });

  it('a percentage is of the movable nodes, as the normal limit', () => {
    const p = pass('vrf-rebuild', { ...KNOB, updateLimit: { kind: 'percent', percent: 20 } });
    expect(assigned(p.actions)).toHaveLength(2);
  });

  it('the desired revision says why its limit is lower (kubectl nodenet status prints it)', () => {
    const name = desired(undefined).metadata.name;
    expect(condition(pass('vrf-rebuild'), name)).toMatchObject({
      status: 'True',
      reason: 'DisruptiveChange',
      message:
        'disruption vrf-rebuild (RolloutPolicy default spec.disruptive.from=session-reset): update limit 1 instead of 4',
    });
    expect(condition(pass(undefined), name)).toMatchObject({ status: 'True', reason: 'DisruptionNotKnown' });
    expect(condition(pass('refilter'), name)).toMatchObject({
      status: 'False',
      reason: 'MilderThanKnob',
      message: 'disruption refilter is milder than spec.disruptive.from=session-reset: update limit 4',
    });
  });

  it('turns the wave barrier on for a disruptive revision only', () => {
    const waved = (worst: DisruptionClass) =>
      plan(
        input({
          revisions: [completed(rev(1, A)), desired(worst)],
          // Wave 1: a (in progress), b (done); wave 2: c, d waiting.
          nodes: ['a', 'b', 'c', 'd'].map((n, i) => node(n, { labels: { wave: i < 2 ? '1' : '2' } })),
          nodeConfigs: [
            nc('a', B, { number: 2 }),
            nc('b', B, { number: 2, status: done(B) }),
            nc('c', A, { number: 1, status: done(A) }),
            nc('d', A, { number: 1, status: done(A) }),
          ],
          policy: {
            updateLimit: { kind: 'count', count: 4 },
            waveLabel: 'wave',
            disruptive: { ...KNOB, updateLimit: { kind: 'count', count: 4 } },
          },
        }),
      );
    // Same limit either way: only the barrier differs.
    expect(assigned(waved('refilter').actions)).toEqual(['c', 'd']);
    const held = waved('vrf-rebuild');
    expect(assigned(held.actions)).toEqual([]);
    expect(condition(held, desired(undefined).metadata.name)?.message).toBe(
      'disruption vrf-rebuild (RolloutPolicy default spec.disruptive.from=session-reset): update limit 4, waves of wave are barriers',
    );
  });
});
