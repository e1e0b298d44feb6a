import { describe, expect, it } from 'vitest';
import { observe } from '@nodenet/configurator';
import { A, B, done, nc, node, provisioning } from './fixtures.js';

describe('observations (the configurator clock)', () => {
  it('stamps each fact when first seen and keeps the stamp while it is unchanged', () => {
    const o1 = observe(new Map(), [node('n0')], [nc('n0', A)], 100);
    expect(o1.get('n0')).toEqual({
      assignKey: expect.any(String),
      assignSince: 100,
      statusSince: 100,
      readiness: 'ready',
      readinessSince: 100,
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

  it('a new assignment (new assigned-at) is a new fact even with the same spec', () => {
    const a = nc('n0', A);
    const o1 = observe(new Map(), [node('n0')], [a], 100);
    const b = {
      ...a,
      metadata: { ...a.metadata, annotations: { 'network.nodenet.io/assigned-at': 'later' } },
    };
    expect(observe(o1, [node('n0')], [b], 200).get('n0')?.assignSince).toBe(200);
  });
});
