/**
 * Ownership by mark and in-place changes on the machine's own kernel, in a network namespace:
 * devices nodenet makes carry the interface alias `nodenet`; a hand-made device with a
 * nodenet-looking name survives an apply and a restore; a name held by such a device stops the apply
 * before any change; a live bridge is changed in place (same ifindex, ports and FDB entries kept);
 * an older agent's unmarked devices are adopted once. `ip -json -details` is the judge.
 */
import { execFileSync } from 'node:child_process';
import type { NodeLayer2Entry } from '@nodenet/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { l2 as baseL2 } from '../../packages/agent/test/netlink-fixtures.js';
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
  type IpLink,
} from './netns.js';

const VTEP = '10.50.0.1';

const l2 = (over: Partial<NodeLayer2Entry> = {}): NodeLayer2Entry =>
  baseL2({
    anycastGateways: ['10.1.0.1/24'],
    createMacVLANInterface: true,
    neighSuppression: true,
    ...over,
  });
const spec = (...layer2: NodeLayer2Entry[]) => ({ vrf: [], layer2, routingTable: [] });
const EMPTY = spec();

/** What identifies a device and everything nodenet could change on it. */
const fingerprint = (l: IpLink | undefined) =>
  l && {
    ifindex: l.ifindex,
    mtu: l.mtu,
    address: l.address,
    master: l.master,
    up: l.flags.includes('UP'),
    ifalias: l.ifalias,
    // The settings nodenet could touch, not the kernel's running timers.
    data: Object.fromEntries(
      Object.entries(l.linkinfo?.info_data ?? {}).filter(([k]) =>
        ['id', 'local', 'port', 'learning'].includes(k),
      ),
    ),
  };

describePrivileged(
  'device ownership and in-place changes',
  { root: true, commands: ['ip', 'bridge'] },
  () => {
    const ns = uniqueNetns('own');
    let driver: DriverClient;

    beforeAll(() => {
      addNetns(ns);
      driver = startDriver(ns, { vtepAddress: VTEP });
    });
    afterAll(async () => {
      await driver?.close();
      delNetns(ns);
    });

    it('marks every device it creates with the interface alias "nodenet" (veth peers too)', async () => {
      await driver.apply(spec(l2()));
      const l = links(ns);
      for (const name of ['l2.100', 'vx.1100', 'vm.100', 'mv.100'])
        expect(l.get(name)?.ifalias, name).toBe('nodenet');
    });

    it('leaves hand-made vx.7777 and br.7777 untouched through an apply and a restore', async () => {
      ipIn(ns, ['link', 'add', 'br.7777', 'mtu', '1400', 'type', 'bridge']);
      ipIn(ns, [
        'link',
        'add',
        'vx.7777',
        'type',
        'vxlan',
        'id',
        '7777',
        'local',
        VTEP,
        'dstport',
        '4789',
        'nolearning',
      ]);
      ipIn(ns, ['link', 'set', 'vx.7777', 'master', 'br.7777']);
      ipIn(ns, ['link', 'set', 'br.7777', 'up']);
      ipIn(ns, ['addr', 'add', '192.168.77.1/24', 'dev', 'br.7777']);
      const before = links(ns);

      // An apply that changes nodenet's own devices…
      const res = await driver.apply(spec(l2({ mtu: 1450 }), l2({ name: 'net-b', id: 200, vni: 1200 })));
      expect(res.applied.filter((o) => JSON.stringify(o).includes('7777'))).toEqual([]);
      // …then a restore to nothing (what the agent does without a checkpoint): everything nodenet owns goes.
      await driver.apply(EMPTY);
      const after = links(ns);
      for (const gone of ['l2.100', 'vx.1100', 'vm.100', 'mv.100', 'l2.200', 'vx.1200'])
        expect(after.has(gone), gone).toBe(false);
      for (const kept of ['br.7777', 'vx.7777'])
        expect(fingerprint(after.get(kept)), kept).toEqual(fingerprint(before.get(kept)));
      expect(after.get('vx.7777')?.ifalias).toBeUndefined();
      expect(addrs(ns, 'br.7777')).toEqual(['192.168.77.1/24']);
      // Nothing left to do: the hand-made devices are not drift.
      expect((await driver.plan(EMPTY)).operations).toEqual([]);
    });

    it('refuses a desired name held by a hand-made device before changing anything, naming it', async () => {
      await driver.apply(spec(l2()));
      ipIn(ns, ['link', 'add', 'l2.300', 'type', 'bridge']);
      const before = [...links(ns).values()].map(fingerprint);
      const err = await driver.apply(spec(l2({ mtu: 1450 }), l2({ name: 'net-c', id: 300, vni: 1300 }))).then(
        () => new Error('applied'),
        (e: unknown) => e as Error & { code?: string },
      );
      expect(err).toMatchObject({ errorName: 'DeviceOwnershipError', code: 'DeviceNotOwned' });
      expect(err.message).toMatch(
        /device l2\.300 \(bridge\) exists but was not made by nodenet .*ip link set l2\.300 alias nodenet/,
      );
      expect([...links(ns).values()].map(fingerprint)).toEqual(before);
      // Handing it over (the documented way) lets the apply go on and take it in place.
      const index = links(ns).get('l2.300')!.ifindex;
      ipIn(ns, ['link', 'set', 'l2.300', 'alias', 'nodenet']);
      await driver.apply(spec(l2(), l2({ name: 'net-c', id: 300, vni: 1300 })));
      expect(links(ns).get('l2.300')?.ifindex).toBe(index);
      expect(links(ns).get('vx.1300')?.master).toBe('l2.300');
    });

    it('changes a live bridge in place: same ifindex, its ports (hand-added too) and FDB entries kept', async () => {
      ipIn(ns, ['link', 'add', 'eth-p', 'type', 'veth', 'peer', 'name', 'eth-q']);
      ipIn(ns, ['link', 'set', 'eth-p', 'master', 'l2.100']);
      execBridge(ns, ['fdb', 'add', '02:00:00:00:77:01', 'dev', 'eth-p', 'master', 'static']);
      const before = links(ns);
      const res = await driver.apply(
        spec(
          l2({
            mtu: 1450,
            anycastMac: '02:aa:00:00:02:00',
            anycastGateways: ['10.1.1.1/24'],
            neighSuppression: false,
          }),
          l2({ name: 'net-c', id: 300, vni: 1300 }),
        ),
      );
      expect(res.applied.filter((o) => ['delete', 'create', 'recreate'].includes(o.op))).toEqual([]);
      const after = links(ns);
      for (const name of ['l2.100', 'vx.1100', 'vm.100', 'eth-p'])
        expect(after.get(name)?.ifindex, name).toBe(before.get(name)?.ifindex);
      expect(after.get('l2.100')).toMatchObject({ mtu: 1450, address: '02:aa:00:00:02:00' });
      expect(addrs(ns, 'l2.100')).toEqual(['10.1.1.1/24']);
      for (const port of ['vx.1100', 'vm.100', 'eth-p']) expect(after.get(port)?.master, port).toBe('l2.100');
      expect(execBridge(ns, ['fdb', 'show', 'dev', 'eth-p'])).toContain('02:00:00:00:77:01');
    });

    it('turns VXLAN learning back off on the live device', async () => {
      const want = spec(l2({ name: 'net-c', id: 300, vni: 1300 }));
      await driver.apply(want);
      ipIn(ns, ['link', 'set', 'vx.1300', 'type', 'vxlan', 'learning']);
      const index = links(ns).get('vx.1300')!.ifindex;
      expect(links(ns).get('vx.1300')?.linkinfo?.info_data).toMatchObject({ learning: true });
      const res = await driver.apply(want);
      expect(res.applied).toEqual([{ op: 'set', device: 'vx.1300', learning: false }]);
      expect(links(ns).get('vx.1300')).toMatchObject({ ifindex: index, master: 'l2.300' });
      expect(links(ns).get('vx.1300')?.linkinfo?.info_data).toMatchObject({ learning: false, id: 1300 });
    });

    it('recreates a VXLAN only for a setting the kernel cannot change (its UDP port), saying so', async () => {
      // The port is not in the spec: change the live device behind nodenet's back to see the diff's reason.
      const want = spec(l2({ name: 'net-c', id: 300, vni: 1300 }));
      await driver.apply(want);
      ipIn(ns, ['link', 'del', 'vx.1300']);
      ipIn(ns, [
        'link',
        'add',
        'vx.1300',
        'type',
        'vxlan',
        'id',
        '1300',
        'local',
        VTEP,
        'dstport',
        '8472',
        'nolearning',
      ]);
      ipIn(ns, ['link', 'set', 'vx.1300', 'alias', 'nodenet', 'master', 'l2.300', 'up']);
      const bridgeIndex = links(ns).get('l2.300')!.ifindex;
      const { operations } = await driver.plan(want);
      expect(operations.find((o) => o.op === 'recreate')).toMatchObject({
        device: { name: 'vx.1300' },
        reason: "port 8472 → 4789: the kernel cannot change a VXLAN's UDP port",
      });
      await driver.apply(want);
      expect(links(ns).get('vx.1300')?.linkinfo?.info_data).toMatchObject({ port: 4789 });
      expect(links(ns).get('l2.300')?.ifindex).toBe(bridgeIndex);
    });
  },
);

describePrivileged("adoption of an older agent's devices", { root: true, commands: ['ip'] }, () => {
  const ns = uniqueNetns('adopt');
  const applied = spec(l2(), l2({ name: 'net-b', id: 200, vni: 1200, createMacVLANInterface: false }));

  beforeAll(() => addNetns(ns));
  afterAll(() => delNetns(ns));

  it('adopts, once, the unmarked devices that match the applied checkpoint exactly, changing nothing else', async () => {
    // An older agent's host: the devices of `applied`, without marks; one drifted by hand.
    let driver = startDriver(ns, { vtepAddress: VTEP });
    await driver.apply(applied);
    await driver.close();
    for (const name of links(ns).keys()) if (name !== 'lo') ipIn(ns, ['link', 'set', name, 'alias', '']);
    ipIn(ns, ['link', 'set', 'l2.200', 'mtu', '1400']);
    const before = links(ns);

    driver = startDriver(ns, { vtepAddress: VTEP, adopt: applied });
    try {
      const err = await driver.apply(applied).then(
        () => new Error('applied'),
        (e: unknown) => e as Error,
      );
      // The drifted bridge is not nodenet's to repair: the apply names it and changes nothing…
      expect(err.message).toMatch(/device l2\.200 \(bridge\) exists but was not made by nodenet/);
      expect([...links(ns).values()].map((l) => l.ifalias)).not.toContain('nodenet');
      // …until it is put back as the checkpoint has it; then all are adopted in one go, in place.
      ipIn(ns, ['link', 'set', 'l2.200', 'mtu', '1500']);
      const res = await driver.apply(applied);
      expect(res.applied.map((o) => o.op)).toEqual(Array(6).fill('adopt'));
      const after = links(ns);
      for (const name of ['l2.100', 'vx.1100', 'vm.100', 'mv.100', 'l2.200', 'vx.1200']) {
        expect(after.get(name)?.ifalias, name).toBe('nodenet');
        expect(after.get(name)?.ifindex, name).toBe(before.get(name)?.ifindex);
      }
      expect((await driver.apply(applied)).operations).toBe(0);
      // Once marks exist, an unmarked look-alike is not adopted: it is refused.
      ipIn(ns, ['link', 'add', 'l2.300', 'type', 'bridge']);
      await expect(
        driver.apply({ ...applied, layer2: [...applied.layer2, l2({ name: 'c', id: 300, vni: 1300 })] }),
      ).rejects.toThrow(/device l2\.300 \(bridge\) exists but was not made by nodenet/);
    } finally {
      await driver.close();
    }
  });
});

/** `bridge <args>` inside the namespace (argv, no shell). */
function execBridge(ns: string, args: string[]): string {
  return execFileSync('ip', ['netns', 'exec', ns, 'bridge', ...args], { encoding: 'utf8' });
}
