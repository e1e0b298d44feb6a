import type { VrfEntry } from '@nodenet/api';
import netlink from 'netlink';
import { describe, expect, it } from 'vitest';
import {
  decodeLinkInfo,
  encodeBridgePort,
  encodeLinkInfo,
  toBuffer,
  allocateVrfTables,
  rememberedTables,
  checkUnderlayMtu,
  DesiredStateError,
  desiredModel,
  diff,
  type Operation,
} from '@nodenet/agent';
import { asApplied, l2, model, vrf } from './netlink-fixtures.js';

const { ifla } = netlink;

/** A table allocation from a literal (the allocation is a Map: VRF names are people's). */
const tables = (o: Record<string, number>): Map<string, number> => new Map(Object.entries(o));

const names = (ops: Operation[]): string[] =>
  ops.map(
    (o) =>
      `${o.op} ${o.op === 'create' || o.op === 'recreate' ? o.device.name : o.device}${o.op === 'addAddress' || o.op === 'delAddress' ? ` ${o.address}` : ''}`,
  );

describe('desiredModel', () => {
  it('gives a VRF configured by several objects one set of devices (two VRFRouteConfigurations, one VRF)', () => {
    const second: VrfEntry = { ...vrf('blue'), name: 'cfg-blue-v6', seq: 20 };
    const m = model({ vrf: [vrf('blue'), second] }, { blue: 1000 });
    expect([...m.keys()].sort()).toEqual(['br.blue', 'dv.blue', 'vd.blue', 'vr.blue', 'vx.blue']);
  });

  it("puts the node's loopback addresses of every entry of a VRF on the VRF device, as host prefixes", () => {
    const first = { ...vrf('blue'), loopbackAddresses: [{ name: 'lo', address: '10.255.0.7' }] };
    const second = {
      ...vrf('blue'),
      name: 'cfg-blue-v6',
      seq: 20,
      loopbackAddresses: [{ name: 'lo6', address: 'FD00:FF::7' }],
    };
    const m = model({ vrf: [first, second] }, { blue: 1000 });
    expect(m.get('vr.blue')?.addresses).toEqual(['10.255.0.7/32', 'fd00:ff::7/128']);
    const without = model({ vrf: [vrf('blue')] }, { blue: 1000 });
    expect(names(diff(asApplied(m), without))).toEqual([
      'delAddress vr.blue 10.255.0.7/32',
      'delAddress vr.blue fd00:ff::7/128',
    ]);
  });

  it('refuses entries of one VRF that disagree on the MTU, naming both', () => {
    const second: VrfEntry = { ...vrf('blue'), name: 'cfg-blue-v6', seq: 20, mtu: 1500 };
    expect(() => model({ vrf: [vrf('blue'), second] }, { blue: 1000 })).toThrow(
      /vrf\[1\]\(cfg-blue-v6\).*VRF blue already has VNI 5000 and MTU 9000 from vrf\[0\]\(cfg-blue\)/,
    );
  });

  it('builds a Layer-2 network: bridge with anycast MAC and gateways, VXLAN port with suppression and no learning', () => {
    const m = model({
      layer2: [
        l2({
          anycastMac: '02:AA:00:00:00:01',
          anycastGateways: ['10.0.0.1/24', '2001:DB8::1/64'],
          neighSuppression: true,
        }),
      ],
    });
    expect(m.get('l2.100')).toEqual({
      name: 'l2.100',
      kind: 'bridge',
      mtu: 1500,
      mac: '02:aa:00:00:00:01',
      up: true,
      addresses: ['10.0.0.1/24', '2001:db8::1/64'],
    });
    expect(m.get('vx.1100')).toEqual({
      name: 'vx.1100',
      kind: 'vxlan',
      vxlan: { vni: 1100, local: '10.50.0.1', port: 4789, learning: false },
      master: 'l2.100',
      mtu: 1500,
      up: true,
      port: { learning: false, neighSuppress: true, hairpin: false },
      addresses: [],
    });
    expect([...m.keys()]).toEqual(['l2.100', 'vx.1100']);
  });

  it('adds the veth pair vm.<id> (bridge port) / mv.<id> for createMacVLANInterface', () => {
    const m = model({ layer2: [l2({ createMacVLANInterface: true })] });
    expect(m.get('vm.100')).toMatchObject({
      kind: 'veth',
      veth: { peer: 'mv.100', primary: true },
      master: 'l2.100',
    });
    expect(m.get('mv.100')).toMatchObject({ kind: 'veth', veth: { peer: 'vm.100' }, mtu: 1500 });
    expect(m.get('mv.100')!.master).toBeUndefined();
  });

  it('builds a VRF with its table, L3 VNI bridge/VXLAN and veth pair, and enslaves a Layer-2 bridge to it', () => {
    const m = model(
      { vrf: [vrf('blue')], layer2: [l2({ vrf: 'blue' })], routingTable: [{ name: 't', tableId: 77 }] },
      { blue: 120 },
    );
    expect(m.get('vr.blue')).toMatchObject({ kind: 'vrf', vrf: { table: 120 }, up: true });
    expect(m.get('br.blue')).toMatchObject({ kind: 'bridge', master: 'vr.blue', mtu: 9000 });
    expect(m.get('vx.blue')).toMatchObject({ kind: 'vxlan', master: 'br.blue', vxlan: { vni: 5000 } });
    expect(m.get('vd.blue')).toMatchObject({ kind: 'veth', veth: { peer: 'dv.blue', primary: true } });
    expect(m.get('dv.blue')).toMatchObject({ kind: 'veth', master: 'vr.blue' });
    expect(m.get('l2.100')!.master).toBe('vr.blue');
    expect(m.get('taas.77')).toMatchObject({ kind: 'vrf', vrf: { table: 77 } });
  });

  it('rejects bad input naming the field and value', () => {
    expect(() =>
      desiredModel({
        spec: { vrf: [], layer2: [l2()], routingTable: [] },
        settings: { vtepAddress: 'nope' },
        tables: new Map(),
      }),
    ).toThrow('settings.vtepAddress="nope": not an IPv4 or IPv6 address');
    expect(() => model({ layer2: [l2({ anycastGateways: ['10.0.0.300/24'] })] })).toThrow(
      /layer2\[0\]\(net-a\)\.anycastGateways\[0\]="10\.0\.0\.300\/24"/,
    );
    expect(() => model({ layer2: [l2({ vrf: 'ghost' })] })).toThrow(
      'layer2[0](net-a).vrf="ghost": no VRF of that name in the config',
    );
    // A VRF named like a VNI collides with that VNI's VXLAN device name.
    expect(() => model({ vrf: [vrf('1100')], layer2: [l2()] }, { '1100': 100 })).toThrow(DesiredStateError);
    expect(() => model({ vrf: [vrf('1100')], layer2: [l2()] }, { '1100': 100 })).toThrow(
      /"vx\.1100": device name already used by vrf\[0\]/,
    );
  });
});

describe('checkUnderlayMtu', () => {
  const underlay = { name: 'vtep0', mtu: 1550, vtepAddress: '10.50.0.1' };

  it('accepts networks that fit the underlay with the VXLAN overhead', () => {
    expect(() => checkUnderlayMtu({ vrf: [], layer2: [l2({ mtu: 1500 })] }, underlay)).not.toThrow();
  });

  it('names the network, its MTU and the underlay when a frame would not fit', () => {
    expect(() =>
      checkUnderlayMtu({ vrf: [], layer2: [l2({ mtu: 1500 })] }, { ...underlay, mtu: 1500 }),
    ).toThrow(
      'layer2[0](net-a).mtu=1500: needs an underlay MTU of at least 1550 (VXLAN adds 50 bytes), but vtep0 has 1500',
    );
    expect(() => checkUnderlayMtu({ vrf: [vrf('red')], layer2: [] }, underlay)).toThrow(
      'vrf[0](cfg-red).mtu=9000: needs an underlay MTU of at least 9050 (VXLAN adds 50 bytes), but vtep0 has 1550',
    );
  });

  it('counts 70 bytes over an IPv6 underlay', () => {
    expect(() =>
      checkUnderlayMtu({ vrf: [], layer2: [l2({ mtu: 1500 })] }, { ...underlay, vtepAddress: 'fd00::1' }),
    ).toThrow(DesiredStateError);
  });
});

describe('allocateVrfTables', () => {
  it('gives the lowest free tables in the range, skipping reserved ones', () => {
    expect(
      allocateVrfTables({ vrfs: ['a', 'b', 'c'], range: { min: 100, max: 200 }, reserved: [101] }),
    ).toEqual(tables({ a: 100, b: 102, c: 103 }));
  });
  it('keeps a running VRF on its host table, then the previous allocation, and never shares a table', () => {
    const t = allocateVrfTables({
      vrfs: ['a', 'b', 'c', 'd'],
      range: { min: 100, max: 200 },
      host: tables({ c: 100 }),
      previous: tables({ a: 100, b: 150, d: 999 }),
    });
    expect(t).toEqual(tables({ c: 100, b: 150, a: 101, d: 102 }));
  });
  it('is stable: the same inputs give the same allocation, and adding a VRF does not move others', () => {
    const first = allocateVrfTables({ vrfs: ['x', 'y'] });
    expect(allocateVrfTables({ vrfs: ['w', 'x', 'y'], previous: first })).toEqual(
      new Map([...first, ['w', 102]]),
    );
  });
  it('allocates VRFs named like Object.prototype members as any other name', () => {
    const special = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];
    const t = allocateVrfTables({ vrfs: special, range: { min: 100, max: 200 }, previous: tables({}) });
    expect([...t]).toEqual(special.map((v, i) => [v, 100 + i]));
    const again = allocateVrfTables({ vrfs: ['blue', ...special], previous: t });
    expect(again.get('__proto__')).toBe(101);
    expect(again.get('blue')).toBe(105);
  });
  it('reports an exhausted or invalid range', () => {
    expect(() => allocateVrfTables({ vrfs: ['a', 'b'], range: { min: 10, max: 10 } })).toThrow(
      /no free table left for VRF b/,
    );
    expect(() => allocateVrfTables({ vrfs: ['a'], range: { min: 10, max: 5 } })).toThrow(
      /settings\.vrfTableRange/,
    );
  });
});

describe('diff', () => {
  it('creates masters before ports, then port options, addresses; nothing for a converged host', () => {
    const want = model(
      {
        vrf: [vrf('blue')],
        layer2: [l2({ vrf: 'blue', anycastGateways: ['10.0.0.1/24'], createMacVLANInterface: true })],
      },
      { blue: 100 },
    );
    const ops = diff(new Map(), want);
    expect(names(ops)).toEqual([
      'create vr.blue',
      'create br.blue',
      'create l2.100',
      'create vx.1100',
      'create vx.blue',
      'create vd.blue',
      'create vm.100',
      'set dv.blue',
      'port vx.blue',
      'port vx.1100',
      'addAddress l2.100 10.0.0.1/24',
      'up dv.blue',
      'up mv.100',
    ]);
    expect(diff(asApplied(want), want)).toEqual([]);
  });

  it('changes MTU and MAC in place', () => {
    const before = model({ layer2: [l2()] });
    const after = model({ layer2: [l2({ mtu: 9000, anycastMac: '02:00:00:00:00:42' })] });
    expect(diff(asApplied(before), after)).toEqual([
      { op: 'set', device: 'l2.100', mtu: 9000, mac: '02:00:00:00:00:42' },
      { op: 'set', device: 'vx.1100', mtu: 9000 },
    ]);
  });

  it('recreates only the VXLAN when its VNI changes, and deletes a removed network in reverse order', () => {
    const before = model({
      layer2: [l2(), l2({ name: 'b', id: 200, vni: 1200, createMacVLANInterface: true })],
    });
    const after = model({ layer2: [l2({ vni: 1101 })] });
    expect(names(diff(asApplied(before), after))).toEqual([
      'delete mv.100'.replace('100', '200'),
      'delete vm.200',
      'delete vx.1100',
      'delete vx.1200',
      'delete l2.200',
      'create vx.1101',
      'port vx.1101',
    ]);
  });

  it('recreates a VRF whose table changed and re-enslaves its ports', () => {
    const before = model({ vrf: [vrf('blue')], layer2: [l2({ vrf: 'blue' })] }, { blue: 100 });
    const after = model({ vrf: [vrf('blue')], layer2: [l2({ vrf: 'blue' })] }, { blue: 101 });
    const ops = diff(asApplied(before), after);
    expect(ops[0]).toMatchObject({
      op: 'recreate',
      device: { name: 'vr.blue' },
      was: 'vrf',
      reason: "table 100 → 101: the kernel cannot change a VRF's table",
    });
    expect(names(ops)).toEqual(['recreate vr.blue', 'set br.blue', 'set l2.100', 'set dv.blue']);
    expect(ops.filter((o) => o.op === 'set').every((o) => o.op === 'set' && o.master === 'vr.blue')).toBe(
      true,
    );
  });

  it('toggles neighbour suppression and fixes port options, addresses and link state drift', () => {
    const want = model({ layer2: [l2({ neighSuppression: true, anycastGateways: ['10.0.0.1/24'] })] });
    const cur = asApplied(want);
    cur.set('vx.1100', {
      ...cur.get('vx.1100')!,
      port: { learning: true, neighSuppress: false, hairpin: true },
      up: false,
    });
    cur.set('l2.100', { ...cur.get('l2.100')!, addresses: ['10.0.0.2/24'] });
    expect(diff(cur, want)).toEqual([
      { op: 'port', device: 'vx.1100', options: { learning: false, neighSuppress: true, hairpin: false } },
      { op: 'delAddress', device: 'l2.100', address: '10.0.0.2/24' },
      { op: 'addAddress', device: 'l2.100', address: '10.0.0.1/24' },
      { op: 'up', device: 'vx.1100' },
    ]);
  });

  it('recreates a half-created veth pair and a device of the wrong kind', () => {
    const want = model({ layer2: [l2({ createMacVLANInterface: true })] });
    const cur = asApplied(want);
    cur.delete('vm.100');
    cur.set('mv.100', { ...cur.get('mv.100')!, veth: { peer: 'none' } });
    cur.set('l2.100', { ...cur.get('l2.100')!, kind: 'vxlan' as const });
    const ops = names(diff(cur, want));
    // vx.1100 lost its master with the old l2.100: it is re-enslaved and its port options set again.
    expect(ops).toEqual([
      'delete mv.100',
      'recreate l2.100',
      'create vm.100',
      'set vx.1100',
      'port vx.1100',
      'up mv.100',
    ]);
  });
});

describe('codec', () => {
  it('encodes VXLAN link info that the netlink package parses back to the same values', () => {
    const info = ifla.parseInfo(
      encodeLinkInfo({
        kind: 'vxlan',
        vxlan: { vni: 4242, local: '10.1.2.3', port: 4789, learning: false, linkIndex: 7 },
      }),
    );
    expect(info.kind).toBe('vxlan');
    const v = ifla.parseVxlan(info.data!);
    expect({
      id: v.id,
      local: [...v.local!],
      port: v.port!.readUInt16BE(0),
      learning: v.learning,
      link: v.link,
    }).toEqual({
      id: 4242,
      local: [10, 1, 2, 3],
      port: 4789,
      learning: 0,
      link: 7,
    });
    expect(
      decodeLinkInfo(
        encodeLinkInfo({
          kind: 'vxlan',
          vxlan: { vni: 4242, local: '2001:db8::1', port: 8472, learning: true },
        }),
      ).vxlan,
    ).toEqual({
      vni: 4242,
      local: '2001:db8::1',
      port: 8472,
      learning: true,
    });
  });

  it('round-trips VRF tables, macvlan modes and bridge-port options', () => {
    expect(decodeLinkInfo(encodeLinkInfo({ kind: 'vrf', vrfTable: 1234 }))).toMatchObject({
      kind: 'vrf',
      vrfTable: 1234,
    });
    expect(decodeLinkInfo(encodeLinkInfo({ kind: 'macvlan', macvlan: { mode: 'bridge' } }))).toMatchObject({
      macvlanMode: 'bridge',
    });
    for (const options of [
      { learning: false, neighSuppress: true, hairpin: false },
      { learning: true, neighSuppress: false, hairpin: true },
    ]) {
      const encoded = encodeBridgePort(options);
      expect(decodeLinkInfo(encoded)).toEqual({ slaveKind: 'bridge', port: options });
      const parsed = ifla.parseBridgePort(ifla.parseInfo(encoded).slaveData!);
      expect(parsed.learning).toBe(options.learning ? 1 : 0);
      expect(parsed.neighSuppress![0]).toBe(options.neighSuppress ? 1 : 0);
    }
  });

  it('encodes the veth peer as an ifinfomsg followed by its name', () => {
    const info = ifla.parseInfo(encodeLinkInfo({ kind: 'veth', veth: { peer: 'mv.7', peerMtu: 1400 } }));
    const peerAttr = info.data!;
    expect(peerAttr.readUInt16LE(2)).toBe(1); // IFLA_VETH_PEER
    const attrs = ifla.parseLinkAttrs(peerAttr.subarray(4 + 16));
    expect(attrs.ifname).toBe('mv.7');
    expect(attrs.mtu).toBe(1400);
    expect(toBuffer(Buffer.from([1, 2, 3]))).toEqual(Buffer.from([1, 2, 3]));
  });
});

describe('VRF tables of removed VRFs are remembered', () => {
  it('a new VRF does not take the table remembered for a removed one while others are free', () => {
    const t = allocateVrfTables({
      vrfs: ['blue', 'green'],
      range: { min: 100, max: 110 },
      previous: tables({ blue: 100, red: 101 }),
    });
    expect(t).toEqual(tables({ blue: 100, green: 102 }));
  });

  it('gives a remembered table up only when the range has no other free table', () => {
    const t = allocateVrfTables({
      vrfs: ['blue', 'green'],
      range: { min: 100, max: 101 },
      previous: tables({ blue: 100, red: 101 }),
    });
    expect(t).toEqual(tables({ blue: 100, green: 101 }));
  });

  it('a VRF that comes back gets its remembered table', () => {
    expect(
      allocateVrfTables({
        vrfs: ['red'],
        range: { min: 100, max: 110 },
        previous: tables({ blue: 100, red: 101 }),
      }),
    ).toEqual(tables({ red: 101 }));
  });

  it('persists the current allocation plus remembered tables no current VRF uses', () => {
    expect(
      rememberedTables(tables({ blue: 100, red: 101, old: 105 }), tables({ blue: 100, green: 105 })),
    ).toEqual(tables({ red: 101, blue: 100, green: 105 }));
    expect(rememberedTables(undefined, tables({ blue: 100 }))).toEqual(tables({ blue: 100 }));
  });
});
