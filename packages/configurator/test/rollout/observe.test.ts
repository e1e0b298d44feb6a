import { describe, expect, it } from 'vitest';
import { IncrementalPlanner, observe } from '@nodenet/configurator';
import { A, B, completed, done, input, nc, node, provisioning, rev } from './fixtures.js';

describe('observations (the configurator clock)', () => {
  it('stamps each fact when first seen and keeps the stamp while it is unchanged', () => {
    const o1 = observe(new Map(), [node('n0')], [nc('n0', A)], 100);
    expect(o1.get('n0')).toEqual({
      assignKey: expect.any(String),
      assignSince: 100,
      statusSince: 100,
      renewal: undefined,
      renewalSince: 100,
      readiness: 'ready',
      readinessSince: 100,
      downMs: 0,
      readyRunMs: 0,
    });
    const withStatus = nc('n0', A, { status: provisioning(B) });
    const o2 = observe(o1, [node('n0')], [withStatus], 200);
    expect(o2.get('n0')).toMatchObject({ assignSince: 100, statusSince: 200 });
    const o3 = observe(o2, [node('n0')], [nc('n0', A, { status: provisioning(B) })], 300);
    expect(o3.get('n0')).toBe(o2.get('n0'));
    // A heartbeat (same phase, new lastUpdate) is a change: progress.
    const o4 = observe(o3, [node('n0')], [nc('n0', A, { status: provisioning(B, 123) })], 400);
    expect(o4.get('n0')?.statusSince).toBe(400);
  });

  it("the agent's Lease renewal (issue 40): stamped when its marker moves, never from the agent's renewTime", () => {
    const o1 = observe(new Map(), [node('n0')], [nc('n0', A, { status: provisioning(B) })], 100);
    expect(o1.get('n0')).toMatchObject({ renewal: undefined, renewalSince: 100 });
    const o2 = observe(
      o1,
      [{ ...node('n0'), renewal: '7' }],
      [nc('n0', A, { status: provisioning(B) })],
      200,
    );
    expect(o2.get('n0')).toMatchObject({ renewal: '7', renewalSince: 200, statusSince: 100 });
    const o3 = observe(
      o2,
      [{ ...node('n0'), renewal: '7' }],
      [nc('n0', A, { status: provisioning(B) })],
      300,
    );
    expect(o3.get('n0')).toBe(o2.get('n0'));
    const o4 = observe(
      o3,
      [{ ...node('n0'), renewal: '9' }],
      [nc('n0', A, { status: provisioning(B) })],
      400,
    );
    expect(o4.get('n0')).toMatchObject({ renewalSince: 400, statusSince: 100 });
  });

  it('readiness: NotReady and gone are stamped at first sight, never from the kubelet transition time', () => {
    const o1 = observe(new Map(), [node('n0')], [nc('n0', A, { status: done(A) })], 100);
    const o2 = observe(o1, [node('n0', { ready: false })], [nc('n0', A, { status: done(A) })], 250);
    expect(o2.get('n0')).toMatchObject({ readiness: 'notReady', readinessSince: 250, statusSince: 100 });
    // NotReady then gone is one stretch (#23: an autoscaler deleting a NotReady Node restarted the
    // timer, and the cut-off node's soak seemed over).
    const o3 = observe(o2, [], [nc('n0', A, { status: done(A) })], 300);
    expect(o3.get('n0')).toMatchObject({ readiness: 'gone', readinessSince: 250 });
    expect(observe(o3, [], [], 400).has('n0')).toBe(false);
  });

  it('outages since the assignment add up, and the longest Ready stretch after provisioned is kept (issue 35)', () => {
    const ready = node('n0');
    const down = node('n0', { ready: false });
    const a = nc('n0', A, { status: done(A) });
    const o1 = observe(new Map(), [ready], [a], 100);
    const o2 = observe(o1, [down], [a], 130); // Ready 30 ms since provisioned
    const o3 = observe(o2, [ready], [a], 210); // NotReady 80 ms
    const o4 = observe(o3, [down], [a], 230); // Ready 20 ms
    const o5 = observe(o4, [ready], [a], 300); // NotReady 70 ms
    expect(o5.get('n0')).toMatchObject({ downMs: 150, readyRunMs: 30, readinessSince: 300 });
    // A new assignment starts both afresh.
    const b = {
      ...a,
      metadata: { ...a.metadata, annotations: { 'network.nodenet.io/assigned-at': 'later' } },
    };
    expect(observe(o5, [down], [b], 400).get('n0')).toMatchObject({ downMs: 0, readyRunMs: 0 });
  });

  it('a new assignment (new assigned-at) is a new fact even with the same spec', () => {
    const a = nc('n0', A);
    const o1 = observe(new Map(), [node('n0')], [a], 100);
    const b = {
      ...a,
      metadata: { ...a.metadata, annotations: { 'network.nodenet.io/assigned-at': 'later' } },
    };
    expect(observe(o1, [node('n0')], [b], 200).get('n0')?.assignSince).toBe(200);
  });

  it('the incremental planner observes as observe() does, looks again only at replaced objects, and forgets on reset', () => {
    const planner = new IncrementalPlanner();
    const pass = (nodes: ReturnType<typeof node>[], ncs: ReturnType<typeof nc>[], mono: number) => {
      const { observations: _none, ...fleet } = input({
        revisions: [completed(rev(1, A))],
        nodes,
        nodeConfigs: ncs,
        mono,
      });
      planner.plan(fleet);
      return planner.observations;
    };
    const n0 = node('n0');
    const first = nc('n0', A, { status: done(A) });
    const o1 = new Map(pass([n0, node('n1')], [first], 100));
    expect(o1).toEqual(observe(new Map(), [n0, node('n1')], [first], 100));
    // Same objects, later: nothing looked at again, every stamp and object kept.
    const kept = pass([n0, node('n1')], [first], 200);
    expect(kept.get('n0')).toBe(o1.get('n0'));
    // A heartbeat replaces the NodeConfig; n1 is NotReady now, then gone with its Node.
    const beat = nc('n0', A, { status: done(A, 123) });
    const o3 = pass([n0, node('n1', { ready: false })], [beat], 300);
    expect(o3.get('n0')).toMatchObject({ assignSince: 100, statusSince: 300 });
    expect(o3.get('n1')).toMatchObject({ readiness: 'notReady', readinessSince: 300 });
    expect(pass([n0], [beat], 400).has('n1')).toBe(false);
    // A new leader: its timers start afresh.
    planner.reset();
    expect(pass([n0], [beat], 500).get('n0')).toMatchObject({ assignSince: 500, statusSince: 500 });
  });
});
