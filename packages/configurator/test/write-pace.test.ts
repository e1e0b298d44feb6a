/**
 * Pacing of the writes that only tell progress (pace/): when a revision status is written (pure,
 * time injected), and how NodesAssigned Events are gathered over passes.
 */
import { describe, expect, it } from 'vitest';
import type { NetworkConfigRevision, NetworkConfigRevisionStatus } from '@nodenet/api';
import {
  AssignedEvents,
  StatusPace,
  assignedMessage,
  decideStatusWrite,
  plan,
  type StatusUpdate,
} from '@nodenet/configurator';
import { A, M0, T0, done, input, invalid, nc, nodes, rev } from './rollout/fixtures.js';

const limit2 = {
  updateLimit: { kind: 'count' as const, count: 2 },
  maxFailures: 3,
};

/** The status plan() derives for revision 1 over five nodes, the first `ready` of them done, n04 failed when asked. */
function statusOf(
  r: NetworkConfigRevision,
  opts: { ready: number; failed?: boolean; now?: number },
): NetworkConfigRevisionStatus {
  const ncs = nodes(5)
    .slice(0, opts.ready)
    .map((n) => nc(n.name, A, { number: 1, status: done(A) }));
  if (opts.failed) ncs.push(nc('n04', A, { number: 1, status: invalid(A, 'vtep missing') }));
  const p = plan(
    input({ revisions: [r], nodes: nodes(5), nodeConfigs: ncs, policy: limit2, now: opts.now ?? T0 }),
  );
  return p.statusUpdates[0]?.status ?? r.status ?? {};
}

const withStatus = (status: NetworkConfigRevisionStatus): NetworkConfigRevision => ({ ...rev(1, A), status });

describe('decideStatusWrite', () => {
  // A revision that already ran on a node (status.ranAt, issue 35): its first report would set that
  // once, a record change; these cases are about the counts alone.
  const ran: NetworkConfigRevision = { ...rev(1, A), status: { ranAt: new Date(T0).toISOString() } };
  const first = statusOf(ran, { ready: 0 });
  const written = withStatus(first);
  // One more node ready a pass later: the counts and the messages that quote them change, nothing else.
  const counts = statusOf(written, { ready: 1, now: T0 + 300 });

  it('writes nothing when the status is what the revision carries', () => {
    expect(decideStatusWrite({ written: first, next: first, lastWriteAt: undefined, mono: M0 })).toEqual({
      action: 'skip',
    });
  });

  it('a change of the counts alone waits until the last write is one interval old', () => {
    expect(counts.ready).toBe(1);
    expect(decideStatusWrite({ written: first, next: counts, lastWriteAt: M0, mono: M0 + 300 })).toEqual({
      action: 'wait',
      dueInMs: 700,
    });
    expect(decideStatusWrite({ written: first, next: counts, lastWriteAt: M0, mono: M0 + 1000 })).toEqual({
      action: 'write',
      change: 'counts',
    });
    // Never written by this configurator (or long ago): at once.
    expect(decideStatusWrite({ written: first, next: counts, lastWriteAt: undefined, mono: M0 })).toEqual({
      action: 'write',
      change: 'counts',
    });
    expect(
      decideStatusWrite({ written: first, next: counts, lastWriteAt: M0, mono: M0 + 300, intervalMs: 200 }),
    ).toEqual({ action: 'write', change: 'counts' });
  });

  it('a change of the record (completion, a failed node) is written at once, however recent the last write', () => {
    const complete = statusOf(written, { ready: 5, now: T0 + 300 });
    expect(complete.conditions?.find((c) => c.type === 'Complete')?.status).toBe('True');
    expect(decideStatusWrite({ written: first, next: complete, lastWriteAt: M0, mono: M0 + 1 })).toEqual({
      action: 'write',
      change: 'record',
    });
    const failed = statusOf(written, { ready: 1, failed: true, now: T0 + 300 });
    expect(failed.failedNodes?.map((f) => f.node)).toEqual(['n04']);
    expect(decideStatusWrite({ written: first, next: failed, lastWriteAt: M0, mono: M0 + 1 })).toEqual({
      action: 'write',
      change: 'record',
    });
  });
});

describe('StatusPace', () => {
  // A revision that already ran on a node (status.ranAt, issue 35): its first report would set that
  // once, a record change; these cases are about the counts alone.
  const ran: NetworkConfigRevision = { ...rev(1, A), status: { ranAt: new Date(T0).toISOString() } };
  const first = statusOf(ran, { ready: 0 });
  const update = (ready: number, now: number): StatusUpdate => ({
    revision: 'rev-1',
    status: statusOf(withStatus(first), { ready, now }),
  });

  it('at most one count-only write per revision per interval; the held one is due when the interval ends', () => {
    const pace = new StatusPace(1000);
    let carried: NetworkConfigRevisionStatus = first;
    const pass = (ready: number, mono: number): number => {
      const due = pace.due([update(ready, T0 + mono - M0)], () => carried, mono);
      for (const u of due) carried = u.status;
      return due.length;
    };
    expect(pass(1, M0)).toBe(1); // nothing written lately: at once
    expect(pass(2, M0 + 200)).toBe(0);
    expect(pace.nextDueInMs(M0 + 200)).toBe(800);
    expect(pass(3, M0 + 600)).toBe(0);
    expect(pace.nextDueInMs(M0 + 600)).toBe(400);
    // The pass the controller asks for then writes what the status says then.
    expect(pass(3, M0 + 1000)).toBe(1);
    expect(carried.ready).toBe(3);
    expect(pace.nextDueInMs(M0 + 1000)).toBeUndefined();
    // Settled: nothing differs, nothing is written or held.
    expect(pass(3, M0 + 1100)).toBe(0);
    expect(pace.nextDueInMs(M0 + 1100)).toBeUndefined();
    // Complete: written at once, 150 ms after the last write.
    expect(pass(5, M0 + 1150)).toBe(1);
    expect(carried.phase).toBe('Complete');
  });
});

describe('StatusPace: the RolloutPolicy summary', () => {
  it('follows the same rule under its own key: its counts at most once an interval, its phase at once', () => {
    const cond = {
      type: 'Paused',
      status: 'False' as const,
      reason: 'NotPaused',
      message: 'not paused',
      lastTransitionTime: '2025-01-01T00:00:00Z',
    };
    const at = (ready: number, phase: 'RollingOut' | 'Complete') => ({
      phase,
      total: 5,
      ready,
      ongoing: 5 - ready,
      failed: 0,
      conditions: [cond],
    });
    const pace = new StatusPace(1000);
    expect(pace.due([], () => undefined, M0)).toEqual([]);
    expect(pace.dueOne('RolloutPolicy default', at(0, 'RollingOut'), at(1, 'RollingOut'), M0)).toBe(true);
    expect(pace.due([], () => undefined, M0 + 300)).toEqual([]);
    expect(pace.dueOne('RolloutPolicy default', at(1, 'RollingOut'), at(2, 'RollingOut'), M0 + 300)).toBe(
      false,
    );
    expect(pace.nextDueInMs(M0 + 300)).toBe(700);
    expect(pace.dueOne('RolloutPolicy default', at(1, 'RollingOut'), at(5, 'Complete'), M0 + 400)).toBe(true);
  });
});

describe('AssignedEvents', () => {
  it('the first assignments after a quiet window are told at once, the next ones gathered into one Event per window', () => {
    const ev = new AssignedEvents(5000);
    ev.add('rev-2', ['n00', 'n01']);
    expect(ev.due(M0)).toEqual([{ revision: 'rev-2', count: 2, names: ['n00', 'n01'], passes: 1 }]);
    ev.add('rev-2', ['n02']);
    expect(ev.due(M0 + 1000)).toEqual([]);
    ev.add('rev-2', ['n03', 'n04']);
    expect(ev.due(M0 + 2000)).toEqual([]);
    expect(ev.nextDueInMs(M0 + 2000)).toBe(3000);
    const [d] = ev.due(M0 + 5000);
    expect(d).toEqual({ revision: 'rev-2', count: 3, names: ['n02', 'n03', 'n04'], passes: 2 });
    expect(assignedMessage(d!, 2)).toBe('assigned 3 node(s) to revision 2 over 2 passes: n02, n03, n04');
    expect(ev.nextDueInMs(M0 + 5000)).toBeUndefined();
  });

  it('an Event names at most 20 nodes and counts the rest', () => {
    const ev = new AssignedEvents(5000);
    const names = Array.from({ length: 30 }, (_, i) => `n${String(i).padStart(2, '0')}`);
    ev.add('rev-2', names.slice(0, 15));
    ev.add('rev-2', names.slice(15));
    const [d] = ev.due(M0);
    expect(d?.count).toBe(30);
    expect(d?.names).toEqual(names.slice(0, 20));
    expect(assignedMessage(d!, 2)).toMatch(
      /^assigned 30 node\(s\) to revision 2 over 2 passes: n00, .*, n19 and 10 more$/,
    );
  });
});
