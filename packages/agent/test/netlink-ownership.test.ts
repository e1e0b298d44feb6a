/**
 * Pure parts of the host-device rules: ownership by mark (conflicts, one-time adoption), live
 * devices changed in place with `recreate` only for what the kernel cannot change, and the L3 VNI
 * hold-down.
 */
import { describe, expect, it } from 'vitest';
import {
  DeviceOwnershipError,
  diff,
  holdL3Vnis,
  l3Vnis,
  resolveOwnership,
  assertNoConflicts,
  type HostModel,
  type Operation,
} from '@nodenet/agent';
import { asApplied, l2, model, vrf } from './netlink-fixtures.js';

const label = (o: Operation): string =>
  `${o.op} ${o.op === 'create' || o.op === 'recreate' ? o.device.name : o.device}`;

describe('ownership by mark', () => {
  const want = model({ layer2: [l2()] });

  it('never hands an unmarked device to the diff: a hand-made vx.7777 is neither owned nor deleted', () => {
    const handMade: HostModel = new Map([
      [
        'vx.7777',
        { ...asApplied(model({ layer2: [l2({ vni: 7777 })] })).get('vx.7777')!, master: undefined },
      ],
    ]);
    const o = resolveOwnership({
      owned: asApplied(want),
      unowned: handMade,
      allNames: new Set(['vx.7777', 'l2.100', 'vx.1100']),
      desired: want,
    });
    expect(o.conflicts).toEqual([]);
    expect(o.owned.has('vx.7777')).toBe(false);
    expect(diff(o.owned, want)).toEqual([]);
    // The empty spec (remove everything) deletes only what is owned.
    expect(diff(o.owned, new Map()).map(label)).toEqual(['delete vx.1100', 'delete l2.100']);
  });

  it('refuses a desired name held by an unmarked device, before any change, saying how to resolve it', () => {
    const o = resolveOwnership({
      owned: new Map(),
      unowned: new Map([['l2.100', { ...asApplied(want).get('l2.100')!, mtu: 1400 }]]),
      allNames: new Set(['l2.100', 'eth0']),
      desired: want,
    });
    expect(o.conflicts).toEqual([{ name: 'l2.100', kind: 'bridge' }]);
    expect(() => assertNoConflicts(o)).toThrow(DeviceOwnershipError);
    expect(() => assertNoConflicts(o)).toThrow(
      /device l2\.100 \(bridge\) exists but was not made by nodenet \(no interface alias "nodenet"\).*ip link del l2\.100.*ip link set l2\.100 alias nodenet/,
    );
  });

  it('counts a device of any name as a conflict when the desired state needs its name', () => {
    const o = resolveOwnership({
      owned: new Map(),
      unowned: new Map(),
      allNames: new Map([['vx.1100', 7]]),
      desired: want,
    });
    expect(o.conflicts).toEqual([{ name: 'vx.1100', kind: 'unknown' }]);
  });

  it('adopts, on a host without marks, the devices matching the applied checkpoint exactly', () => {
    const applied = model({ layer2: [l2({ createMacVLANInterface: true })] });
    const host = asApplied(applied);
    host.set('vx.1100', {
      ...host.get('vx.1100')!,
      port: { learning: false, neighSuppress: false, hairpin: false },
    });
    host.set('vm.100', {
      ...host.get('vm.100')!,
      port: { learning: true, neighSuppress: false, hairpin: false },
    });
    // A drifted device (MTU changed by hand) and an unrelated hand-made one stay unowned.
    host.set('mv.100', { ...host.get('mv.100')!, mtu: 1400 });
    host.set('vx.7777', { ...host.get('vx.1100')!, name: 'vx.7777' });
    const o = resolveOwnership({
      owned: new Map(),
      unowned: host,
      allNames: host,
      desired: applied,
      adoptable: applied,
    });
    expect(o.adopt.map(label)).toEqual(['adopt l2.100', 'adopt vm.100', 'adopt vx.1100']);
    expect([...o.owned.keys()].sort()).toEqual(['l2.100', 'vm.100', 'vx.1100']);
    expect(o.conflicts).toEqual([{ name: 'mv.100', kind: 'veth' }]);
  });

  it('adopts nothing once any device carries the mark (adoption happens once per host)', () => {
    const applied = model({ layer2: [l2(), l2({ name: 'b', id: 200, vni: 1200 })] });
    const host = asApplied(applied);
    const owned: HostModel = new Map([
      ['l2.200', host.get('l2.200')!],
      ['vx.1200', host.get('vx.1200')!],
    ]);
    host.delete('l2.200');
    host.delete('vx.1200');
    const o = resolveOwnership({
      owned,
      unowned: host,
      allNames: new Set([...host.keys(), ...owned.keys()]),
      desired: applied,
      adoptable: applied,
    });
    expect(o.adopt).toEqual([]);
    expect(o.conflicts.map((c) => c.name).sort()).toEqual(['l2.100', 'vx.1100']);
  });
});

describe('live devices are changed in place', () => {
  it('changes a bridge (MTU, MAC, gateways, VRF) in place: no delete, no recreate, its ports untouched', () => {
    const before = model(
      { vrf: [vrf('blue')], layer2: [l2({ anycastGateways: ['10.0.0.1/24'] })] },
      { blue: 100 },
    );
    const after = model(
      {
        vrf: [vrf('blue', 5000, 1450)],
        layer2: [
          l2({ vrf: 'blue', mtu: 1450, anycastMac: '02:aa:00:00:00:01', anycastGateways: ['10.0.1.1/24'] }),
        ],
      },
      { blue: 100 },
    );
    const ops = diff(asApplied(before), after);
    expect(ops.filter((o) => ['delete', 'create', 'recreate'].includes(o.op))).toEqual([]);
    expect(ops).toContainEqual({
      op: 'set',
      device: 'l2.100',
      mtu: 1450,
      mac: '02:aa:00:00:00:01',
      master: 'vr.blue',
    });
    expect(ops).toContainEqual({ op: 'set', device: 'br.blue', mtu: 1450 });
    expect(ops.some((o) => o.op === 'set' && o.device === 'vx.1100' && o.master !== undefined)).toBe(false);
  });

  it('turns VXLAN learning off in place (the kernel changes it live)', () => {
    const want = model({ layer2: [l2()] });
    const cur = asApplied(want);
    cur.set('vx.1100', { ...cur.get('vx.1100')!, vxlan: { ...cur.get('vx.1100')!.vxlan!, learning: true } });
    expect(diff(cur, want)).toEqual([{ op: 'set', device: 'vx.1100', learning: false }]);
  });

  it('recreates an L3 VNI VXLAN whose VNI changed, keeping its bridge, and says why', () => {
    const before = model({ vrf: [vrf('blue', 5000)] }, { blue: 100 });
    const after = model({ vrf: [vrf('blue', 5001)] }, { blue: 100 });
    const ops = diff(asApplied(before), after);
    expect(ops.map(label)).toEqual(['recreate vx.blue', 'port vx.blue']);
    expect(ops[0]).toMatchObject({
      op: 'recreate',
      was: 'vxlan',
      reason: "VNI 5000 → 5001: the kernel cannot change a VXLAN's VNI",
    });
  });

  it('recreates a VXLAN for a new local address or UDP port, and a device of the wrong kind', () => {
    const want = model({ layer2: [l2()] });
    const cur = asApplied(want);
    cur.set('vx.1100', { ...cur.get('vx.1100')!, vxlan: { ...cur.get('vx.1100')!.vxlan!, port: 8472 } });
    cur.set('l2.100', { ...cur.get('l2.100')!, kind: 'veth', veth: { peer: 'none' } });
    const ops = diff(cur, want);
    expect(ops.filter((o) => o.op === 'recreate').map((o) => o.op === 'recreate' && o.reason)).toEqual([
      'kind veth → bridge: a device cannot change its kind',
      "port 8472 → 4789: the kernel cannot change a VXLAN's UDP port",
    ]);
    cur.set('vx.1100', {
      ...cur.get('vx.1100')!,
      vxlan: { ...cur.get('vx.1100')!.vxlan!, local: '10.9.9.9', port: 4789 },
    });
    expect(diff(cur, want).find((o) => o.op === 'recreate' && o.device.name === 'vx.1100')).toMatchObject({
      reason: "local 10.9.9.9 → 10.50.0.1: the kernel cannot change a VXLAN's local address",
    });
  });
});

describe('L3 VNI hold-down', () => {
  const want = model(
    { vrf: [vrf('blue', 5000), { ...vrf('blue', 5000), name: 'cfg-blue-2' }, vrf('red', 5001)] },
    { blue: 100, red: 101 },
  );
  const vnis = l3Vnis([vrf('blue', 5000), { ...vrf('blue', 5000), name: 'cfg-blue-2' }, vrf('red', 5001)]);

  it("creates a new VRF's bridge and VXLAN down and gates them; the VRF and veths come up at once", () => {
    expect(vnis).toEqual([
      { vrf: 'blue', vni: 5000 },
      { vrf: 'red', vni: 5001 },
    ]);
    const { operations, gates } = holdL3Vnis(diff(new Map(), want), vnis);
    const created = new Map(
      operations.flatMap((o) => (o.op === 'create' ? [[o.device.name, o.device.up] as const] : [])),
    );
    expect(created.get('br.blue')).toBe(false);
    expect(created.get('vx.blue')).toBe(false);
    expect(created.get('vr.blue')).toBe(true);
    expect(created.get('vd.blue')).toBe(true);
    expect(gates).toEqual([
      { vrf: 'blue', vrfDevice: 'vr.blue', vni: 5000, vxlan: 'vx.blue', devices: ['br.blue', 'vx.blue'] },
      { vrf: 'red', vrfDevice: 'vr.red', vni: 5001, vxlan: 'vx.red', devices: ['br.red', 'vx.red'] },
    ]);
  });

  it('gates nothing on a converged host, and only the VXLAN when just its VNI changes or it is found down', () => {
    expect(holdL3Vnis(diff(asApplied(want), want), vnis)).toEqual({ operations: [], gates: [] });
    const newVni = model({ vrf: [vrf('blue', 5002), vrf('red', 5001)] }, { blue: 100, red: 101 });
    const cur = asApplied(want);
    cur.set('vx.red', { ...cur.get('vx.red')!, up: false });
    const held = holdL3Vnis(diff(cur, newVni), l3Vnis([vrf('blue', 5002), vrf('red', 5001)]));
    expect(held.gates).toEqual([
      { vrf: 'blue', vrfDevice: 'vr.blue', vni: 5002, vxlan: 'vx.blue', devices: ['vx.blue'] },
      { vrf: 'red', vrfDevice: 'vr.red', vni: 5001, vxlan: 'vx.red', devices: ['vx.red'] },
    ]);
    expect(held.operations.some((o) => o.op === 'up')).toBe(false);
    expect(held.operations.find((o) => o.op === 'recreate')).toMatchObject({
      device: { name: 'vx.blue', up: false },
    });
  });
});
