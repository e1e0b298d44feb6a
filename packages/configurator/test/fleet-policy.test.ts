import type { RolloutPolicy } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import {
  effectivePolicy,
  findRolloutPolicy,
  DEFAULT_POLICY,
  knobCeilings,
  plan,
  type Policy,
} from '@nodenet/configurator';
import { A, B, completed, done, input, nc, nodes, ofType, rev } from './rollout/fixtures.js';

const rp = (spec: RolloutPolicy['spec'], name = 'default'): RolloutPolicy => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'RolloutPolicy',
  metadata: { name },
  spec,
});

/** A site that lets the RolloutPolicy loosen up to 50% and 5 failures (--*-ceiling). */
const SITE: Policy = {
  ...DEFAULT_POLICY,
  ceilings: { updateLimit: { kind: 'percent', percent: 50 }, maxFailures: 5 },
};

describe('RolloutPolicy default over the flags', () => {
  it.each([
    { what: 'no policy: the flags', spec: undefined, expect: {} },
    { what: 'paused', spec: { paused: true }, expect: { paused: true } },
    { what: 'a count', spec: { updateLimit: '3' }, expect: { updateLimit: { kind: 'count', count: 3 } } },
    {
      what: 'a percentage',
      spec: { updateLimit: '25%' },
      expect: { updateLimit: { kind: 'percent', percent: 25 } },
    },
    {
      what: 'timeouts and soak',
      spec: { preconfigTimeout: '30s', configTimeout: '1m', notReadyTimeout: '2m', minSuccessTime: '10m' },
      expect: {
        preconfigTimeoutMs: 30_000,
        configTimeoutMs: 60_000,
        notReadyTimeoutMs: 120_000,
        minSuccessTimeMs: 600_000,
      },
    },
    {
      what: 'failures and wave label',
      spec: { maxFailures: 2, waveLabel: 'rack' },
      expect: { maxFailures: 2, waveLabel: 'rack' },
    },
  ] as const)('$what', ({ spec, expect: want }) => {
    const r = effectivePolicy(SITE, spec ? rp(spec) : undefined);
    expect(r.problems).toEqual([]);
    expect(r.policy).toEqual({ ...SITE, ...want });
  });

  it('a knob that cannot be read keeps the flag and names the field and value', () => {
    const r = effectivePolicy(DEFAULT_POLICY, rp({ updateLimit: '0', configTimeout: '5 minutes' }));
    expect(r.policy).toEqual(DEFAULT_POLICY);
    expect(r.problems).toEqual([
      'spec.updateLimit: must be a positive integer or a percentage like 25% (got "0")',
      'spec.configTimeout: must be a duration such as 500ms, 30s, 1.5s, 10m, 1h30m or 0 (got "5 minutes")',
    ]);
  });

  // Issue #23: a timeout of 0 invalidated a good revision 50 ms after the assignment.
  it.each([
    ['preconfigTimeout', '0', 'at least 10s'],
    ['configTimeout', '5s', 'at least 10s'],
    ['notReadyTimeout', '0s', 'at least 30s'],
  ] as const)(
    'a %s of %s is below its lower bound: the flag stays, Valid=False names the knob',
    (field, value, bound) => {
      const r = effectivePolicy(DEFAULT_POLICY, rp({ [field]: value }));
      expect(r.policy).toEqual(DEFAULT_POLICY);
      expect(r.problems).toEqual([
        `spec.${field}: must be ${bound} (a shorter one fails healthy nodes) (got "${value}")`,
      ]);
    },
  );

  // Issue #37: preconfigTimeout 100000h was accepted.
  it.each([
    ['preconfigTimeout', '100000h'],
    ['configTimeout', '24h1s'],
    ['notReadyTimeout', '25h'],
    ['minSuccessTime', '1000000h'],
  ] as const)('a %s of %s is above 24h: the flag stays, Valid=False names the knob', (field, value) => {
    const r = effectivePolicy(DEFAULT_POLICY, rp({ [field]: value }));
    expect(r.policy).toEqual(DEFAULT_POLICY);
    expect(r.problems).toEqual([
      `spec.${field}: must be at most 24h (a longer one holds a silent node in its slot) (got "${value}")`,
    ]);
  });

  // Issue #37: the right to write the RolloutPolicy set updateLimit 100% and maxFailures 1000000.
  describe('ceilings: the RolloutPolicy loosens the flags only as far as the site allows', () => {
    const flags: Policy = { ...DEFAULT_POLICY, updateLimit: { kind: 'count', count: 2 }, maxFailures: 1 };
    const refusal = (field: string, ceiling: string, flag: string, value: string) =>
      `spec.${field}: must be at most ${ceiling}, the site's ceiling (--${flag}-ceiling, or --${flag} when that is unset); the flag's value stays (got "${value}")`;

    it('without ceiling flags the flags are the ceiling: above them refused, the flag stays', () => {
      const r = effectivePolicy(flags, rp({ updateLimit: '3', maxFailures: 1000000 }));
      expect(r.policy).toEqual(flags);
      expect(r.problems).toEqual([
        refusal('updateLimit', '2', 'update-limit', '3'),
        refusal('maxFailures', '1', 'max-failures', '1000000'),
      ]);
    });

    it('a percentage against a count ceiling is compared for the target nodes', () => {
      // 100% of 10 nodes is 10 slots, above 2; 10% of 10 is 1, within.
      expect(effectivePolicy(flags, rp({ updateLimit: '100%' }), 10).problems).toEqual([
        refusal('updateLimit', '2', 'update-limit', '100%'),
      ]);
      expect(effectivePolicy(flags, rp({ updateLimit: '10%' }), 10).policy.updateLimit).toEqual({
        kind: 'percent',
        percent: 10,
      });
    });

    it('tightening is always allowed', () => {
      const r = effectivePolicy(flags, rp({ updateLimit: '1', maxFailures: 0 }));
      expect(r.problems).toEqual([]);
      expect(r.policy).toMatchObject({ updateLimit: { kind: 'count', count: 1 }, maxFailures: 0 });
    });

    it('a site ceiling above the flags lets the knobs that far, no further', () => {
      const site = {
        ...flags,
        ceilings: { updateLimit: { kind: 'percent', percent: 25 }, maxFailures: 3 },
      } as const;
      expect(effectivePolicy(site, rp({ updateLimit: '25%', maxFailures: 3 }), 100).problems).toEqual([]);
      expect(effectivePolicy(site, rp({ updateLimit: '26%', maxFailures: 4 }), 100).problems).toEqual([
        refusal('updateLimit', '25%', 'update-limit', '26%'),
        refusal('maxFailures', '3', 'max-failures', '4'),
      ]);
    });

    it('the ceiling flags are read and may not be below their flag', () => {
      expect(knobCeilings({ updateLimit: '1', maxFailures: '0' })).toEqual({});
      expect(
        knobCeilings({
          updateLimit: '1',
          maxFailures: '0',
          updateLimitCeiling: '20%',
          maxFailuresCeiling: '2',
        }),
      ).toEqual({ ceilings: { updateLimit: { kind: 'percent', percent: 20 }, maxFailures: 2 } });
      expect(() => knobCeilings({ updateLimit: '5', maxFailures: '0', updateLimitCeiling: '2' })).toThrow(
        '--update-limit-ceiling: must not be below --update-limit (got "2")',
      );
      expect(() => knobCeilings({ updateLimit: '1', maxFailures: '3', maxFailuresCeiling: '1' })).toThrow(
        '--max-failures-ceiling: must not be below --max-failures (got "1")',
      );
    });
  });

  it('waveBarrier is a knob', () => {
    expect(effectivePolicy(DEFAULT_POLICY, rp({ waveBarrier: true })).policy.waveBarrier).toBe(true);
  });

  it('disruptive is a knob, with its defaults: session-reset and worse, one at a time, barriers (issue 39)', () => {
    expect(effectivePolicy(DEFAULT_POLICY, rp({ disruptive: {} })).policy.disruptive).toEqual({
      from: 'session-reset',
      updateLimit: { kind: 'count', count: 1 },
      waveBarrier: true,
    });
    const set = rp({ disruptive: { from: 'vrf-rebuild', updateLimit: '10%', waveBarrier: false } });
    expect(effectivePolicy(DEFAULT_POLICY, set).policy.disruptive).toEqual({
      from: 'vrf-rebuild',
      updateLimit: { kind: 'percent', percent: 10 },
      waveBarrier: false,
    });
  });

  // The bad-value corpus of the knob: one change each, one exact problem; the rest of the policy stays.
  it.each([
    [
      { updateLimit: '0' },
      'spec.disruptive.updateLimit: must be a positive integer or a percentage like 25% (got "0")',
    ],
    [{ updateLimit: '150%' }, 'spec.disruptive.updateLimit: percentage must be in (0, 100] (got "150%")'],
    [
      { from: 'reboot' },
      'spec.disruptive.from: must be one of none, refilter, session-reset, l2-interruption, vrf-rebuild (got "reboot")',
    ],
  ])('disruptive %j is refused with one problem naming the field and the value', (bad, problem) => {
    const r = effectivePolicy(SITE, rp({ updateLimit: '3', disruptive: bad as never }));
    expect(r.problems).toEqual([problem]);
    expect(r.policy).toEqual({ ...SITE, updateLimit: { kind: 'count', count: 3 } });
  });

  it('only the object named default counts', () => {
    expect(findRolloutPolicy([rp({ paused: true }, 'other')])).toBeUndefined();
    expect(findRolloutPolicy([rp({}, 'other'), rp({ paused: true })])?.spec.paused).toBe(true);
  });
});

describe('plan under the fleet-wide pause', () => {
  const ns = nodes(2);
  it('no forward move on a revision that is not paused itself', () => {
    const p = plan(
      input({
        revisions: [rev(2, B), completed(rev(1, A))],
        nodes: ns,
        nodeConfigs: ns.map((n) => nc(n.name, A, { number: 1, status: done(A) })),
        policy: { paused: true, updateLimit: { kind: 'count', count: 2 } },
      }),
    );
    expect(ofType(p.actions, 'assign')).toEqual([]);
    expect(p.statusUpdates.find((u) => u.revision === 'rev-2-bbbbbbbbbb')?.status.phase).toBe('Paused');
  });
  it('a rollback away from an invalid revision still runs', () => {
    const p = plan(
      input({
        revisions: [rev(2, B, { invalid: true }), completed(rev(1, A))],
        nodes: ns,
        nodeConfigs: [
          nc('n00', B, { number: 2, status: done(B) }),
          nc('n01', A, { number: 1, status: done(A) }),
        ],
        policy: { paused: true },
      }),
    );
    expect(ofType(p.actions, 'assign').map((a) => [a.node, a.rollback])).toEqual([['n00', true]]);
  });
});
