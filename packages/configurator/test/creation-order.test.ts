/**
 * The creation order the configurator keeps for the blame rule within one second (issue 44):
 * the resourceVersion at first sight, kept through later writes, forgotten on delete, new for an
 * object re-created under the same name.
 */
import { describe, expect, it } from 'vitest';
import type { InputObject } from '@nodenet/api';
import { CreationOrder } from '../src/build/creation-order.js';

const net = (uid: string, resourceVersion: string): InputObject =>
  ({
    apiVersion: 'network.nodenet.io/v1alpha1',
    kind: 'Layer2NetworkConfiguration',
    metadata: { name: 'web', uid, resourceVersion },
    spec: { id: 10, vni: 10010 },
  }) as InputObject;

describe('CreationOrder', () => {
  it('keeps the resourceVersion of first sight through later writes (edits, status)', () => {
    const order = new CreationOrder();
    order.note({ type: 'add', object: net('u1', '100') });
    order.note({ type: 'update', object: net('u1', '250') });
    expect(order.of(net('u1', '250'))).toBe(100n);
  });

  it('forgets a deleted object; one re-created under the same name is ordered anew', () => {
    const order = new CreationOrder();
    order.note({ type: 'add', object: net('u1', '100') });
    order.note({ type: 'delete', object: net('u1', '120') });
    expect(order.of(net('u1', '100'))).toBeUndefined();
    order.note({ type: 'add', object: net('u1', '100') });
    // Its delete missed (a relist): the new uid is a new object.
    order.note({ type: 'update', object: net('u2', '300') });
    expect(order.of(net('u2', '300'))).toBe(300n);
    expect(order.of(net('u1', '100'))).toBeUndefined();
  });

  it('gives no order for a resourceVersion that is not a decimal number', () => {
    const order = new CreationOrder();
    order.note({ type: 'add', object: net('u1', 'opaque-7') });
    expect(order.of(net('u1', 'opaque-7'))).toBeUndefined();
  });
});
