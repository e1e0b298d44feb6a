/**
 * The real `nodenet-agent` binary on a host with the full Debian kernel (VM): it applies a NodeConfig
 * with two VRFs (L3 VNIs, route leaking with the default VRF), a Layer-2 network inside a VRF and a
 * RoutingTable, reports `provisioned`, and restores and reports a bad VRF change. One VM boot runs
 * the whole scenario (agent-guest.ts): devcluster, FRR (zebra + bgpd) and the agent all run inside
 * the guest, so no host network or clock is involved. The judges are `ip -json`, vtysh and the API,
 * as the guest recorded them.
 *
 * Why devcluster inside the guest rather than the host's through QEMU user networking (10.0.2.2):
 * the guest then needs no NIC, no DHCP and no port forwarding, the agent's API-server health check
 * measures a loopback that cannot flap with the host's load, and every timestamp the scenario
 * compares comes from one clock. It costs a few seconds of emulated CPU at start-up.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { NodeConfigStatus } from '@nodenet/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleGuest, FRR_PREREQUISITES, runInVm, vmPrerequisites, type VmResult } from '@nodenet/testkit';
import { describePrivileged } from '../support/privileged.js';

interface IpLink {
  ifname: string;
  mtu: number;
  master?: string;
  flags: string[];
  operstate: string;
  linkinfo?: { info_kind?: string; info_data?: Record<string, unknown> };
}
interface IpAddr {
  ifname: string;
  addr_info: { local: string; prefixlen: number; scope: string }[];
}
interface IpRoute {
  dst: string;
  dev?: string;
  type?: string;
  protocol?: string;
}
interface EvpnVni {
  vni: number;
  type: string;
  tenantVrf?: string;
  vxlanIf?: string;
}
interface VrfVni {
  vrfs?: { vrf: string; vni: number; vxlanIntf: string; sviIntf: string; state: string }[];
}
interface Snapshot {
  links: IpLink[];
  addrs: IpAddr[];
  vrfTables: Record<string, number>;
  routes: Record<string, IpRoute[]>;
  evpnVni: Record<string, EvpnVni>;
  vrfVni: VrfVni;
  bgpSummary: Record<string, { ipv4Unicast?: { peers?: Record<string, { state: string }> } }>;
  bgpDefault: { routes?: Record<string, unknown> };
  runningConfig: string;
}
interface GuestResult {
  timings: Record<string, number>;
  failure?: string;
  lastStatus?: NodeConfigStatus;
  agentLog: string[];
  good: { hash: string; name: string };
  provisioned: NodeConfigStatus;
  converged: boolean;
  observedSupported: boolean;
  afterGood: Snapshot;
  statusAfterGood: NodeConfigStatus;
  bad: { hash: string; name: string };
  rejected: NodeConfigStatus;
  afterBad: Snapshot;
  events: {
    reason?: string;
    type?: string;
    message?: string;
    involvedObject?: { kind?: string; name?: string };
  }[];
}

const repo = resolve(import.meta.dirname, '../..');
const link = (s: Snapshot, name: string): IpLink | undefined => s.links.find((l) => l.ifname === name);
const addrs = (s: Snapshot, name: string): string[] =>
  (s.addrs.find((a) => a.ifname === name)?.addr_info ?? [])
    .filter((a) => a.scope !== 'link')
    .map((a) => `${a.local}/${a.prefixlen}`);
const routeTo = (s: Snapshot, table: string, dst: string): IpRoute | undefined =>
  s.routes[table]?.find((r) => r.dst === dst);

/** status.observed as the agent writes it (field names of @nodenet/api's ObservedState). */
interface Observed {
  frrVersion?: string;
  bgpSessions?: { vrf: string; peer: string; state: string; since?: string }[];
  vnis?: { vni: number; type: string; vrf?: string; vxlanInterface?: string; state?: string }[];
  error?: string;
}
const observed = (status: NodeConfigStatus): Observed | undefined =>
  (status as { observed?: Observed }).observed;

const prerequisites = {
  ...vmPrerequisites(),
  commands: [...vmPrerequisites().commands, ...FRR_PREREQUISITES.commands],
};

describePrivileged('nodenet-agent with VRFs under a full kernel (VM)', prerequisites, () => {
  let vm: VmResult;
  let r: GuestResult;
  let bundle: string | undefined;

  beforeAll(async () => {
    // The guest runs the agent binary from dist/, as a node would.
    execFileSync('npx', ['tsc', '-b', 'packages/agent'], { cwd: repo, stdio: 'pipe' });
    bundle = await bundleGuest('test/vm/agent-guest.ts');
    vm = await runInVm({
      command: ['node', bundle],
      cwd: repo,
      env: { NODENET_AGENT_VM_GUEST: '1' }, // the guest script refuses to run without it
      timeoutMs: 600_000,
      memoryMiB: 1536,
    });
    const line = vm.output.split('\n').find((l) => l.startsWith('RESULT='));
    if (!line)
      throw new Error(`guest failed (exit ${vm.exitCode}):\n${vm.output}\n${vm.console.slice(-3000)}`);
    r = JSON.parse(line.slice('RESULT='.length)) as GuestResult;
    // Measured for the report; not asserted (no timed assertions).
    console.log(`agent-vm: VM ${vm.durationMs} ms; guest phases (ms): ${JSON.stringify(r.timings)}`);
    if (vm.exitCode !== 0 || r.failure)
      throw new Error(
        `guest failed (exit ${vm.exitCode}): ${r.failure}\nlast status: ${JSON.stringify(r.lastStatus)}\n` +
          `agent log:\n${r.agentLog.join('\n')}\n${vm.output.slice(-4000)}`,
      );
  }, 660_000);
  afterAll(() => {
    if (bundle) rmSync(bundle, { force: true });
  });

  describe('a NodeConfig with two VRFs, route leaking, an L2 network in a VRF and a RoutingTable', () => {
    it('reports provisioned for the revision it was handed', () => {
      expect(r.provisioned).toMatchObject({ configStatus: 'provisioned', lastAppliedRevision: r.good.hash });
      expect(r.provisioned.message).toMatch(/^revision [0-9a-f]{10} applied; health: all \d+ checks passed$/);
      expect(r.provisioned.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    });

    it('ip -json: VRF devices on allocated tables, bridge and VXLAN of each L3 VNI up in their VRF', () => {
      const s = r.afterGood;
      expect(s.vrfTables).toMatchObject({ 'vr.blue': 100, 'vr.red': 101, 'taas.77': 77 });
      for (const [v, vni] of [
        ['blue', 5000],
        ['red', 5001],
      ] as const) {
        expect(link(s, `vr.${v}`)?.flags).toContain('UP');
        expect(link(s, `br.${v}`), v).toMatchObject({ master: `vr.${v}`, linkinfo: { info_kind: 'bridge' } });
        expect(link(s, `br.${v}`)?.flags).toContain('UP');
        expect(link(s, `vx.${v}`), v).toMatchObject({
          master: `br.${v}`,
          linkinfo: { info_kind: 'vxlan', info_data: { id: vni, local: '10.50.0.1', port: 4789 } },
        });
        expect(link(s, `vx.${v}`)?.flags).toContain('UP');
        // The leaking veth pair: default side free, VRF side enslaved.
        expect(link(s, `vd.${v}`)?.master).toBeUndefined();
        expect(link(s, `dv.${v}`)?.master).toBe(`vr.${v}`);
      }
      expect(link(s, 'taas.77')?.flags).toContain('UP');
      // The L2 network inside blue, its gateways connected in blue's table.
      expect(link(s, 'l2.60')?.master).toBe('vr.blue');
      expect(addrs(s, 'l2.60').sort()).toEqual(['10.60.1.1/24', '10.61.1.1/24']);
      expect(routeTo(s, 'vr.blue', '10.60.1.0/24')?.dev).toBe('l2.60');
      // The hand-made VXLAN device is not nodenet's: untouched.
      expect(link(s, 'legacy99')?.linkinfo?.info_data?.id).toBe(5099);
    });

    it('vtysh: FRR shows each L3 VNI typed L3 in its VRF, and the L2 VNI typed L2', () => {
      const vnis = r.afterGood.evpnVni;
      expect(vnis['5000'], JSON.stringify(vnis)).toMatchObject({ type: 'L3', tenantVrf: 'vr.blue' });
      expect(vnis['5001']).toMatchObject({ type: 'L3', tenantVrf: 'vr.red' });
      expect(vnis['20060']).toMatchObject({ type: 'L2', tenantVrf: 'vr.blue' });
      const byVrf = Object.fromEntries((r.afterGood.vrfVni.vrfs ?? []).map((v) => [v.vrf, v]));
      expect(byVrf['vr.blue'], JSON.stringify(r.afterGood.vrfVni)).toMatchObject({
        vni: 5000,
        vxlanIntf: 'vx.blue',
        sviIntf: 'br.blue',
        state: 'Up',
      });
      expect(byVrf['vr.red']).toMatchObject({
        vni: 5001,
        vxlanIntf: 'vx.red',
        sviIntf: 'br.red',
        state: 'Up',
      });
    });

    it('vtysh: the running config has both VRFs, their leaking policy and the routing table import', () => {
      const cfg = r.afterGood.runningConfig;
      expect(cfg).toMatch(/^vrf vr\.blue\n vni 5000\n/m);
      expect(cfg).toMatch(/^vrf vr\.red\n vni 5001\n/m);
      expect(cfg).toMatch(/^ip prefix-list pl_blue_import_10 seq 1 permit 10\.60\.0\.0\/16 le 32$/m);
      expect(cfg).toMatch(/^router bgp 65010 vrf vr\.blue$/m);
      expect(cfg).toMatch(/^router bgp 65010 vrf taas\.77$/m);
      expect(cfg).toMatch(/^ {2}import vrf taas\.77$/m);
      expect(cfg).toMatch(/^ {2}route-target import 65010:1001$/m);
    });

    it('routes leak as the prefix-lists say: VRF → default, default → VRF, routing table → default', () => {
      expect(r.converged, JSON.stringify(r.afterGood.routes)).toBe(true);
      const s = r.afterGood;
      // blue's network in the main table (import list), its other network not (not in the list).
      expect(routeTo(s, 'main', '10.60.1.0/24')?.protocol).toBe('bgp');
      expect(routeTo(s, 'main', '10.61.1.0/24')).toBeUndefined();
      // The default VRF's 10.70.1.0/24 in red's table (export list).
      expect(routeTo(s, 'vr.red', '10.70.1.0/24')?.protocol).toBe('bgp');
      // The leaking sessions of both VRFs are up.
      expect(s.bgpSummary['default']?.ipv4Unicast?.peers?.['vd.blue']?.state).toBe('Established');
      expect(s.bgpSummary['vr.red']?.ipv4Unicast?.peers?.['dv.red']?.state).toBe('Established');
      // The routing table's kernel route is imported into the default VRF.
      expect(Object.keys(s.bgpDefault.routes ?? {})).toContain('10.77.0.0/24');
    });

    it('status.observed, where the CRD has it, shows each L3 VNI typed L3 and the leaking sessions', () => {
      const obs = observed(r.statusAfterGood);
      if (!r.observedSupported) {
        // A checkout whose NodeConfig CRD has no status.observed: the agent writes none.
        expect(obs).toBeUndefined();
        return;
      }
      expect(obs?.error, JSON.stringify(obs)).toBeUndefined();
      expect(obs?.frrVersion).toMatch(/^\d+\.\d+/);
      expect(obs?.vnis).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ vni: 5000, type: 'L3', vrf: 'vr.blue' }),
          expect.objectContaining({ vni: 5001, type: 'L3', vrf: 'vr.red' }),
          expect.objectContaining({ vni: 20060, type: 'L2' }),
        ]),
      );
      expect(obs?.bgpSessions).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ vrf: 'default', peer: 'vd.blue', state: 'Established' }),
          expect.objectContaining({ vrf: 'vr.red', peer: 'dv.red', state: 'Established' }),
        ]),
      );
    });
  });

  // Why this bad change: it is valid for the API (the configurator makes a revision of it), and only
  // the host knows the VNI is taken — by a VXLAN device nodenet does not own (a leftover, another
  // tool) on the same UDP port. The kernel refuses vx.red's re-creation with EEXIST after the old
  // vx.red is gone, so the restore has real work: vx.red back on 5001, in br.red, FRR's L3 VNI again.
  describe('a bad VRF change: red moves to an L3 VNI a foreign VXLAN device holds on the host', () => {
    it('passes the configurator (a new revision) and is reported invalid, naming the netlink step', () => {
      expect(r.bad.hash).not.toBe(r.good.hash);
      expect(r.rejected).toMatchObject({ configStatus: 'invalid', lastAppliedRevision: r.good.hash });
      expect(r.rejected.message).toMatch(/^netlink apply failed: /);
      expect(r.rejected.message).toContain(`restored revision ${r.good.hash.slice(0, 10)}`);
      expect(r.rejected.conditions?.find((c) => c.type === 'Invalid')).toMatchObject({
        status: 'True',
        reason: 'NetlinkApplyFailed',
      });
      expect(
        r.events.find((e) => e.involvedObject?.name === 'vm-node' && e.reason === 'NetlinkApplyFailed'),
        JSON.stringify(r.events),
      ).toMatchObject({ type: 'Warning', involvedObject: { kind: 'NodeConfig' } });
    });

    it('ip -json and vtysh show the previous config restored', () => {
      const s = r.afterBad;
      expect(s.vrfTables).toMatchObject({ 'vr.blue': 100, 'vr.red': 101, 'taas.77': 77 });
      expect(link(s, 'vx.red')).toMatchObject({
        master: 'br.red',
        linkinfo: { info_kind: 'vxlan', info_data: { id: 5001 } },
      });
      expect(link(s, 'vx.red')?.flags).toContain('UP');
      expect(link(s, 'legacy99')?.linkinfo?.info_data?.id).toBe(5099);
      expect(s.evpnVni['5001']).toMatchObject({ type: 'L3', tenantVrf: 'vr.red' });
      // FRR takes the foreign device for an L2 VNI of its own; never an L3 VNI of red.
      expect(s.evpnVni['5099']?.type).not.toBe('L3');
      expect(s.evpnVni['5099']?.tenantVrf).not.toBe('vr.red');
      expect(s.runningConfig).toMatch(/^vrf vr\.red\n vni 5001\n/m);
      expect(s.runningConfig).not.toMatch(/vni 5099/);
    });
  });
});
