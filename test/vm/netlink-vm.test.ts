/**
 * VRF, RoutingTable (taas) and Layer-2-in-VRF paths of the netlink driver, under the full Debian
 * kernel in a VM (the build machines' kernel has no VRF devices). The guest script applies the
 * configurations; the checks below read what `ip -json -details` showed inside the guest.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describePrivileged } from '../support/privileged.js';
import { bundleGuest, runInVm, vmPrerequisites, type VmResult } from '@nodenet/testkit';
import { HOST_PLAN_CASES } from '../../packages/agent/test/host-plan-cases.js';

interface IpLink {
  ifname: string;
  ifindex: number;
  mtu: number;
  address: string;
  master?: string;
  link?: string;
  flags: string[];
  linkinfo?: {
    info_kind?: string;
    info_data?: Record<string, unknown>;
    info_slave_data?: Record<string, unknown>;
  };
}
interface IpAddr {
  ifname: string;
  addr_info: { local: string; prefixlen: number; scope: string }[];
}
interface Snapshot {
  links: IpLink[];
  addrs: IpAddr[];
}
interface GuestResult {
  first: { operations: number; tables: Record<string, number> };
  second: { operations: number };
  afterApply: Snapshot;
  blueRoutes: { dst: string; dev?: string; protocol?: string }[];
  rules: { priority: number; l3mdev?: boolean; table?: string }[];
  restarted: { operations: number; tables: Record<string, number>; applied: string[] };
  afterRestart: Snapshot;
  removed: { operations: number };
  afterRemove: Snapshot;
  again: { operations: number };
  tablesFileAfterRemove: { tables: Record<string, number> };
  fixture: { operations: number; again: number };
  afterFixture: Snapshot;
  /** Issue 39: per VRF host-plan case, the plan's operations and the driver's. */
  hostPlans: Record<string, { planned: unknown[]; applied: unknown[]; again: number }>;
}

const link = (s: Snapshot, name: string): IpLink | undefined => s.links.find((l) => l.ifname === name);
const globalAddrs = (s: Snapshot, name: string): string[] =>
  (s.addrs.find((a) => a.ifname === name)?.addr_info ?? [])
    .filter((a) => a.scope !== 'link')
    .map((a) => `${a.local}/${a.prefixlen}`);

describePrivileged('netlink driver under a full kernel (VM)', vmPrerequisites(), () => {
  let vm: VmResult;
  let r: GuestResult;
  let bundle: string | undefined;

  beforeAll(async () => {
    bundle = await bundleGuest('test/vm/netlink-guest.ts');
    vm = await runInVm({ command: ['node', bundle], timeoutMs: 240_000 });
    const line = vm.output.split('\n').find((l) => l.startsWith('RESULT='));
    if (vm.exitCode !== 0 || !line)
      throw new Error(`guest failed (exit ${vm.exitCode}):\n${vm.output}\n${vm.console.slice(-3000)}`);
    r = JSON.parse(line.slice('RESULT='.length)) as GuestResult;
  }, 300_000);
  afterAll(() => {
    if (bundle) rmSync(bundle, { force: true });
  });

  it('host plan (issue 39): for each VRF case, the operations the driver ran are the plan', () => {
    expect(Object.keys(r.hostPlans).sort()).toEqual(
      Object.entries(HOST_PLAN_CASES)
        .filter(([, c]) => c.vrf)
        .map(([name]) => name)
        .sort(),
    );
    for (const [name, p] of Object.entries(r.hostPlans)) {
      expect(p.applied, name).toEqual(p.planned);
      expect(p.again, `${name}: converged`).toBe(0);
    }
  });

  it('applies the validation fixture goodInputs() (two objects for one VRF) and converges', () => {
    expect(r.fixture.operations).toBeGreaterThan(0);
    expect(r.fixture.again).toBe(0);
    const names = r.afterFixture.links
      .map((l) => l.ifname)
      .filter((n) => /^(vr|br|vx|vd|dv|l2|vm|mv|taas)\./.test(n));
    expect(names.sort()).toEqual(
      [
        'br.blue',
        'br.red',
        'dv.blue',
        'dv.red',
        'l2.10',
        'l2.20',
        'mv.20',
        'taas.5000',
        'vd.blue',
        'vd.red',
        'vm.20',
        'vr.blue',
        'vr.red',
        'vx.10010',
        'vx.10020',
        'vx.blue',
        'vx.red',
      ].sort(),
    );
    expect(link(r.afterFixture, 'l2.10')?.master).toBe('vr.blue');
    expect(globalAddrs(r.afterFixture, 'l2.10').sort()).toEqual(['10.10.0.1/24', '2001:db8:10::1/64']);
  });

  describe('VRFs with their L3 VNI devices', () => {
    it('allocates tables from the configured range and converges (second apply = 0 operations)', () => {
      expect(r.first.tables).toEqual({ blue: 100, red: 101 });
      expect(r.first.operations).toBeGreaterThan(0);
      expect(r.second.operations).toBe(0);
    });

    it('creates vr.<v> with its table, br.<v> and vx.<v> in it, and the vd.<v>/dv.<v> veth pair', () => {
      const s = r.afterApply;
      expect(link(s, 'vr.blue')?.linkinfo).toMatchObject({ info_kind: 'vrf', info_data: { table: 100 } });
      expect(link(s, 'vr.red')?.linkinfo).toMatchObject({ info_kind: 'vrf', info_data: { table: 101 } });
      expect(link(s, 'vr.blue')?.flags).toContain('UP');
      expect(link(s, 'br.blue')).toMatchObject({
        master: 'vr.blue',
        mtu: 9000,
        linkinfo: { info_kind: 'bridge' },
      });
      expect(link(s, 'vx.blue')).toMatchObject({
        master: 'br.blue',
        linkinfo: {
          info_kind: 'vxlan',
          info_data: { id: 5000, local: '10.50.0.1', port: 4789, learning: false },
        },
      });
      expect(link(s, 'vx.blue')?.linkinfo?.info_slave_data).toMatchObject({
        neigh_suppress: true,
        learning: false,
      });
      expect(link(s, 'vd.blue')).toMatchObject({ link: 'dv.blue', linkinfo: { info_kind: 'veth' } });
      expect(link(s, 'vd.blue')?.master).toBeUndefined();
      expect(link(s, 'dv.blue')).toMatchObject({ master: 'vr.blue', link: 'vd.blue' });
    });

    it('keeps tables across a restart: a lost VRF device gets its persisted table back and its ports re-enslaved', () => {
      expect(r.restarted.tables).toEqual({ blue: 100, red: 101 });
      expect(r.restarted.applied).toContain('create');
      const s = r.afterRestart;
      expect(link(s, 'vr.red')?.linkinfo).toMatchObject({ info_kind: 'vrf', info_data: { table: 101 } });
      expect(link(s, 'br.red')?.master).toBe('vr.red');
      expect(link(s, 'dv.red')?.master).toBe('vr.red');
    });

    it('remembers the table of a removed VRF in vrf-tables.json', () => {
      expect(r.tablesFileAfterRemove.tables).toEqual({ blue: 100, red: 101 });
    });

    it('removes only the devices of a removed VRF', () => {
      const names = r.afterRemove.links.map((l) => l.ifname);
      for (const gone of ['vr.red', 'br.red', 'vx.red', 'vd.red', 'dv.red'])
        expect(names).not.toContain(gone);
      for (const kept of [
        'vr.blue',
        'br.blue',
        'vx.blue',
        'vd.blue',
        'dv.blue',
        'l2.100',
        'vx.1100',
        'taas.77',
      ])
        expect(names).toContain(kept);
      expect(r.again.operations).toBe(0);
    });
  });

  describe('RoutingTable (taas)', () => {
    it('creates taas.<tableId> as a VRF on exactly that table, outside the allocation range', () => {
      expect(link(r.afterApply, 'taas.77')?.linkinfo).toMatchObject({
        info_kind: 'vrf',
        info_data: { table: 77 },
      });
      expect(link(r.afterApply, 'taas.77')?.flags).toContain('UP');
      // The kernel's l3mdev rule sends VRF traffic to the VRF tables.
      expect(
        r.rules.some((rule) => 'l3mdev' in rule),
        JSON.stringify(r.rules),
      ).toBe(true);
    });
  });

  describe('Layer-2 network in a VRF', () => {
    it('enslaves l2.<id> to vr.<vrf> with its anycast MAC and gateway, the connected route in the VRF table', () => {
      const s = r.afterApply;
      expect(link(s, 'l2.100')).toMatchObject({ master: 'vr.blue', mtu: 1500, address: '02:aa:00:00:01:00' });
      expect(globalAddrs(s, 'l2.100')).toEqual(['10.1.0.1/24']);
      expect(link(s, 'vx.1100')).toMatchObject({ master: 'l2.100', linkinfo: { info_data: { id: 1100 } } });
      expect(r.blueRoutes.some((rt) => rt.dst === '10.1.0.0/24' && rt.dev === 'l2.100')).toBe(true);
    });
  });
});
