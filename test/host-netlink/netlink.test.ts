/**
 * The netlink driver on the machine's own kernel, in a network namespace. Every result is checked
 * independently with `ip -json -details` (Debian iproute2), never with the driver's own reader.
 */
import { execFileSync } from 'node:child_process';
import type { NodeLayer2Entry } from '@nodenet/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { l2 } from '../../packages/agent/test/netlink-fixtures.js';
import { describePrivileged } from '../support/privileged.js';
import {
  addNetns,
  addrs,
  delNetns,
  ipIn,
  links,
  startDriver,
  uniqueNetns,
  type DriverClient,
} from './netns.js';

const VTEP = '10.50.0.1';

const spec = (...layer2: NodeLayer2Entry[]) => ({ vrf: [], layer2, routingTable: [] });

const netA = l2({
  anycastMac: '02:aa:00:00:01:00',
  anycastGateways: ['10.1.0.1/24', '2001:db8:1::1/64'],
  neighSuppression: true,
});
const netB = l2({ name: 'net-b', id: 200, mtu: 9000, vni: 1200 });

describePrivileged('netlink driver in a network namespace', { root: true, commands: ['ip'] }, () => {
  const ns = uniqueNetns('host');
  let driver: DriverClient;

  beforeAll(() => {
    addNetns(ns);
    driver = startDriver(ns, { vtepAddress: VTEP });
  });
  afterAll(async () => {
    await driver?.close();
    delNetns(ns);
  });

  it('creates Layer-2 networks with and without anycast gateways, with their VXLAN settings and neighbour suppression', async () => {
    const res = await driver.apply(spec(netA, netB));
    expect(res.operations).toBeGreaterThan(0);
    const l = links(ns);
    const brA = l.get('l2.100')!;
    expect(brA.linkinfo?.info_kind).toBe('bridge');
    expect(brA.mtu).toBe(1500);
    expect(brA.address).toBe('02:aa:00:00:01:00');
    expect(brA.flags).toContain('UP');
    expect(addrs(ns, 'l2.100')).toEqual(['10.1.0.1/24', '2001:db8:1::1/64']);
    const vxA = l.get('vx.1100')!;
    expect(vxA.master).toBe('l2.100');
    expect(vxA.linkinfo?.info_kind).toBe('vxlan');
    expect(vxA.linkinfo?.info_data).toMatchObject({ id: 1100, local: VTEP, port: 4789, learning: false });
    expect(vxA.linkinfo?.info_slave_data).toMatchObject({
      neigh_suppress: true,
      learning: false,
      hairpin: false,
    });
    expect(vxA.flags).toContain('UP');
    const brB = l.get('l2.200')!;
    expect(brB.mtu).toBe(9000);
    expect(addrs(ns, 'l2.200')).toEqual([]);
    expect(l.get('vx.1200')?.linkinfo?.info_slave_data).toMatchObject({
      neigh_suppress: false,
      learning: false,
    });
    // The connected route of the gateway is there (main table, as no VRF is involved).
    expect(ipIn(ns, ['route', 'show', 'dev', 'l2.100'])).toContain('10.1.0.0/24');
  });

  it('is idempotent: applying the same state again performs zero operations', async () => {
    expect((await driver.apply(spec(netA, netB))).operations).toBe(0);
    expect((await driver.plan(spec(netA, netB))).operations).toEqual([]);
  });

  it('changes MTU and MAC in place (same ifindex) and toggles neighbour suppression', async () => {
    const before = links(ns);
    const res = await driver.apply(
      spec({ ...netA, mtu: 1450, anycastMac: '02:aa:00:00:02:00', neighSuppression: false }, netB),
    );
    expect(res.applied.map((o) => o.op).sort()).toEqual(['port', 'set', 'set']);
    const after = links(ns);
    expect(after.get('l2.100')!.ifindex).toBe(before.get('l2.100')!.ifindex);
    expect(after.get('l2.100')!.mtu).toBe(1450);
    expect(after.get('l2.100')!.address).toBe('02:aa:00:00:02:00');
    expect(after.get('vx.1100')!.mtu).toBe(1450);
    expect(after.get('vx.1100')!.linkinfo?.info_slave_data).toMatchObject({ neigh_suppress: false });
    expect(addrs(ns, 'l2.100')).toEqual(['10.1.0.1/24', '2001:db8:1::1/64']);
  });

  it('creates the macvlan veth pair vm.<id> (in the bridge) / mv.<id>', async () => {
    await driver.apply(spec({ ...netA, createMacVLANInterface: true }, netB));
    const l = links(ns);
    expect(l.get('vm.100')).toMatchObject({
      master: 'l2.100',
      link: 'mv.100',
      linkinfo: { info_kind: 'veth' },
    });
    expect(l.get('mv.100')).toMatchObject({ link: 'vm.100', mtu: 1500, linkinfo: { info_kind: 'veth' } });
    expect(l.get('mv.100')!.master).toBeUndefined();
    expect(l.get('mv.100')!.flags).toContain('UP');
    expect((await driver.apply(spec({ ...netA, createMacVLANInterface: true }, netB))).operations).toBe(0);
  });

  it('recreates only the VXLAN when the VNI changes', async () => {
    const before = links(ns);
    const res = await driver.apply(spec({ ...netA, vni: 1101, createMacVLANInterface: true }, netB));
    expect(
      res.applied.map(
        (o) => `${o.op} ${o.op === 'create' || o.op === 'recreate' ? o.device.name : o.device}`,
      ),
    ).toEqual(['delete vx.1100', 'create vx.1101', 'port vx.1101']);
    const after = links(ns);
    expect(after.has('vx.1100')).toBe(false);
    expect(after.get('vx.1101')?.linkinfo?.info_data).toMatchObject({ id: 1101 });
    expect(after.get('l2.100')!.ifindex).toBe(before.get('l2.100')!.ifindex);
    expect(after.get('vm.100')!.ifindex).toBe(before.get('vm.100')!.ifindex);
  });

  it('removes a network and its macvlan pair, leaving unrelated devices alone', async () => {
    ipIn(ns, ['link', 'add', 'br0', 'type', 'bridge']);
    ipIn(ns, ['link', 'add', 'eth-x', 'type', 'veth', 'peer', 'name', 'eth-y']);
    ipIn(ns, ['link', 'set', 'eth-x', 'master', 'br0']);
    ipIn(ns, ['addr', 'add', '192.168.77.1/24', 'dev', 'br0']);
    const res = await driver.apply(spec(netB));
    expect(res.operations).toBeGreaterThan(0);
    const l = links(ns);
    for (const gone of ['l2.100', 'vx.1101', 'vm.100', 'mv.100']) expect(l.has(gone), gone).toBe(false);
    expect(l.has('l2.200') && l.has('vx.1200')).toBe(true);
    expect(l.get('eth-x')?.master).toBe('br0');
    expect(l.has('eth-y')).toBe(true);
    expect(addrs(ns, 'br0')).toEqual(['192.168.77.1/24']);
    expect((await driver.apply(spec(netB))).operations).toBe(0);
  });

  it('recovers from a half-created state and repairs drift', async () => {
    // As if an earlier apply had stopped half-way: a bridge without its address, VXLAN and MAC,
    // a lone veth end, and a managed VXLAN that lost its master and went down. The first two carry
    // nodenet's mark, as the devices of an interrupted apply do.
    ipIn(ns, ['link', 'add', 'l2.100', 'mtu', '1400', 'type', 'bridge']);
    ipIn(ns, ['link', 'add', 'mv.100', 'type', 'veth', 'peer', 'name', 'tmp-peer']);
    for (const dev of ['l2.100', 'mv.100', 'tmp-peer']) ipIn(ns, ['link', 'set', dev, 'alias', 'nodenet']);
    ipIn(ns, ['link', 'set', 'vx.1200', 'nomaster']);
    ipIn(ns, ['link', 'set', 'vx.1200', 'down']);
    const want = spec({ ...netA, createMacVLANInterface: true }, netB);
    const res = await driver.apply(want);
    expect(res.operations).toBeGreaterThan(0);
    const l = links(ns);
    expect(l.get('l2.100')).toMatchObject({ mtu: 1500, address: '02:aa:00:00:01:00' });
    expect(addrs(ns, 'l2.100')).toEqual(['10.1.0.1/24', '2001:db8:1::1/64']);
    expect(l.get('vx.1100')?.master).toBe('l2.100');
    expect(l.get('vm.100')).toMatchObject({ master: 'l2.100', link: 'mv.100' });
    expect(l.has('tmp-peer')).toBe(false);
    expect(l.get('vx.1200')).toMatchObject({ master: 'l2.200' });
    expect(l.get('vx.1200')!.flags).toContain('UP');
    expect(l.get('vx.1200')!.linkinfo?.info_slave_data).toMatchObject({ learning: false });
    expect((await driver.apply(want)).operations).toBe(0);
  });

  it('reports a refused change with the device, the operation and the kernel answer', async () => {
    // A multicast MAC passes the MAC grammar but no kernel accepts it as a device address.
    const bad = spec(l2({ name: 'net-c', id: 300, vni: 1300, anycastMac: '01:00:5e:00:00:01' }));
    await expect(driver.apply(bad)).rejects.toThrow(
      /create bridge l2\.300 \(missing\): device l2\.300: kernel answered EADDRNOTAVAIL/,
    );
  });

  it('removes everything it manages for an empty spec', async () => {
    await driver.apply(spec());
    const managed = [...links(ns).keys()].filter((n) => /^(l2|vx|vm|mv)\./.test(n));
    expect(managed).toEqual([]);
    expect(links(ns).has('br0')).toBe(true);
  });

  it('detects missing kernel support up front, before changing anything', async () => {
    // Ask the kernel independently whether it has VRF devices.
    let hasVrf = true;
    try {
      ipIn(ns, ['link', 'add', 'nn-vrf-check', 'type', 'vrf', 'table', '10']);
      ipIn(ns, ['link', 'del', 'nn-vrf-check']);
    } catch (err) {
      expect(String((err as { stderr?: unknown }).stderr)).toMatch(/Unknown device type|not supported/i);
      hasVrf = false;
    }
    const withVrf = {
      vrf: [{ name: 'v', vrf: 'blue', vni: 5000, import: [], export: [], aggregate: [], seq: 1, mtu: 9000 }],
      layer2: [l2({ vrf: 'blue' })],
      routingTable: [],
    };
    if (hasVrf) {
      expect((await driver.apply(withVrf)).operations).toBeGreaterThan(0);
    } else {
      await expect(driver.apply(withVrf)).rejects.toThrow('kernel lacks VRF devices (CONFIG_NET_VRF)');
      expect([...links(ns).keys()].filter((n) => /^(l2|vx|vr|br|vd|dv)\./.test(n))).toEqual([]);
    }
  });
});

// Keep the namespace list clean if a run was interrupted earlier.
try {
  for (const line of execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n')) {
    const name = line.split(' ')[0];
    if (name?.startsWith('nnnl-host-')) {
      const pid = Number(name.split('-')[2]);
      if (pid && pid !== process.pid && !isAlive(pid)) delNetns(name);
    }
  }
} catch {
  // no ip or no namespaces: nothing to clean
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
