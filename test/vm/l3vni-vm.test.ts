/**
 * L3 VNI bring-up order under the full Debian kernel with a real FRR (VM): a VRF's L3 VNI bridge and
 * VXLAN are created down, FRR is reloaded, and they come up only once FRR shows the VNI as the VRF's
 * L3 VNI; a VNI FRR never shows keeps them down and fails naming the VRF and VNI. The guest
 * (l3vni-guest.ts) drives the agent's own host drivers; `ip -json` and `vtysh` in the guest judge.
 *
 * The same boot then runs a BGPPeering in that VRF (peering-guest.ts, issue #28): the NodeConfig spec
 * the configurator builds (peering-spec.ts: the VRF with a per-node loopback, a Layer-2 network in it,
 * a listen-range peering) applied by the same drivers, and a "workload" network namespace on the
 * Layer-2 network peering with the node's FRR through the listen range. The default-VRF details
 * (BFD, reloads without flaps) are test/frr/frr-peering-host.test.ts's.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBgpSessions } from '@nodenet/agent';
import { peeringCounts, type NodeConfigSpec } from '@nodenet/api';
import { describePrivileged } from '../support/privileged.js';
import { PEERING_SPEC_ENV, WORKLOAD, type PeeringGuestResult } from './peering-guest.js';
import { LOOPBACK_SUBNET, MAX_PREFIXES, peeringNodeSpec } from './peering-spec.js';
import { bundleGuest, runInVm, vmPrerequisites } from '@nodenet/testkit';

type Links = Record<string, { up: boolean; alias?: string }>;
type VrfVni = { vrfs?: { vrf: string; vni: number; vxlanIntf: string; state: string }[] };
type EvpnVni = Record<string, { vni: number; type: string; tenantVrf?: string; vrf?: string }>;
interface GuestResult {
  netlink: { operations: number; links: Links; evpnVni: EvpnVni };
  bringUps: { devices: string[]; links: Links; vrfVni: VrfVni; evpnVni: EvpnVni }[];
  after: { links: Links; vrfVni: VrfVni; evpnVni: EvpnVni };
  again: { operations: number };
  againBringUps: unknown[];
  changed: { operations: number };
  timeout: { error: string | null; name?: string };
  afterTimeout: { links: Links; bringUps: unknown[] };
  peering: PeeringGuestResult;
}

const repo = resolve(import.meta.dirname, '../..');

describePrivileged('L3 VNI bring-up order with a real FRR (VM)', vmPrerequisites(), () => {
  let r: GuestResult;
  let output = '';
  let bundle: string | undefined;
  const peeringSpec: NodeConfigSpec = peeringNodeSpec();

  beforeAll(async () => {
    bundle = await bundleGuest('test/vm/l3vni-guest.ts');
    const script = `set -e
# FRR takes its hostname from the kernel; "(none)" is a line frr-reload.py refuses.
hostname nn-vm
ip link set lo up
ip addr add 10.255.0.1/32 dev lo
mkdir -p /run/frr/vm /tmp/frr/vm
chown frr:frr /run/frr /run/frr/vm /tmp/frr
echo 'service integrated-vtysh-config' > /tmp/frr/vm/vtysh.conf
for d in zebra bgpd; do /usr/lib/frr/$d -d -N vm -P 0 -f /dev/null -i /run/frr/vm/$d.pid --log file:/tmp/frr/$d.log; done
node ${JSON.stringify(bundle)}
`;
    const vm = await runInVm({
      script,
      cwd: repo,
      env: { [PEERING_SPEC_ENV]: JSON.stringify(peeringSpec) },
      timeoutMs: 400_000,
    });
    output = vm.output;
    const line = vm.output.split('\n').find((l) => l.startsWith('RESULT='));
    if (vm.exitCode !== 0 || !line)
      throw new Error(`guest failed (exit ${vm.exitCode}):\n${vm.output}\n${vm.console.slice(-3000)}`);
    r = JSON.parse(line.slice('RESULT='.length)) as GuestResult;
    // Measured for the report; not asserted (no timed assertions).
    console.log(`l3vni-vm: VM ${vm.durationMs} ms, of which the peering part ${r.peering.durationMs} ms`);
  }, 450_000);
  afterAll(() => {
    if (bundle) rmSync(bundle, { force: true });
  });

  it('creates the L3 VNI bridge and VXLAN down (marked), the VRF and its veths up, before FRR knows the VNI', () => {
    expect(r.netlink.operations, output).toBeGreaterThan(0);
    expect(r.netlink.links).toEqual({
      'vr.blue': { up: true, alias: 'nodenet' },
      'br.blue': { up: false, alias: 'nodenet' },
      'vx.blue': { up: false, alias: 'nodenet' },
      'vd.blue': { up: true, alias: 'nodenet' },
      'dv.blue': { up: true, alias: 'nodenet' },
    });
    expect(r.netlink.evpnVni['5000']?.type).not.toBe('L3');
  });

  it('brings them up only once FRR shows VNI 5000 as the L3 VNI of vr.blue, and then they are up', () => {
    expect(r.bringUps, output).toHaveLength(1);
    const at = r.bringUps[0]!;
    expect(at.devices).toEqual(['br.blue', 'vx.blue']);
    // At that moment: still down, and FRR already has the VNI as the VRF's L3 VNI.
    expect(at.links['br.blue']?.up).toBe(false);
    expect(at.links['vx.blue']?.up).toBe(false);
    expect(at.vrfVni.vrfs).toContainEqual(expect.objectContaining({ vrf: 'vr.blue', vni: 5000 }));
    expect(at.evpnVni['5000']).toMatchObject({ vni: 5000, type: 'L3' });
    // Afterwards: up, and FRR keeps it typed L3 with the VXLAN bound.
    expect(r.after.links['br.blue']?.up).toBe(true);
    expect(r.after.links['vx.blue']?.up).toBe(true);
    expect(r.after.evpnVni['5000']).toMatchObject({ type: 'L3' });
    expect(r.after.vrfVni.vrfs).toContainEqual(
      expect.objectContaining({ vrf: 'vr.blue', vni: 5000, vxlanIntf: 'vx.blue' }),
    );
  });

  it('holds nothing on a converged host', () => {
    expect(r.again.operations).toBe(0);
    expect(r.againBringUps).toEqual([]);
  });

  it('keeps a VXLAN whose VNI FRR never shows as L3 down, and fails naming the VRF and the VNI', () => {
    expect(r.changed.operations).toBeGreaterThan(0);
    expect(r.timeout.name).toBe('L3VniNotReadyError');
    expect(r.timeout.error).toMatch(/VRF blue \(VNI 5001, FRR VRF vr\.blue\) within 3 s/);
    expect(r.afterTimeout.bringUps).toEqual([]);
    expect(r.afterTimeout.links['vx.blue']?.up).toBe(false);
  });

  describe('a BGPPeering in the VRF: a workload on its Layer-2 network peers through the listen range', () => {
    const p = (): PeeringGuestResult => {
      expect(r.peering.error, output).toBeUndefined();
      return r.peering;
    };
    const loopback = (): string => {
      const address = peeringSpec.vrf[0]?.loopbackAddresses?.[0]?.address;
      expect(address, JSON.stringify(peeringSpec)).toMatch(/^10\.250\.0\.\d+$/);
      return address!;
    };

    it("puts the node's loopback address on the VRF device and the Layer-2 network into the VRF", () => {
      expect(LOOPBACK_SUBNET).toBe('10.250.0.0/24');
      const local = (p().vrfAddresses ?? []).flatMap((a) =>
        a.addr_info.map((i) => `${i.local}/${i.prefixlen}`),
      );
      expect(local).toContain(`${loopback()}/32`);
      expect(p().l2Link?.[0]?.master).toBe('vr.blue');
    });

    it("brings the workload's session up in the VRF, and the peering's status counts it", () => {
      const sessions = parseBgpSessions(p().bgpSummary ?? '', new Date());
      expect(sessions).toContainEqual(
        expect.objectContaining({ vrf: 'vr.blue', peer: WORKLOAD.address, state: 'Established' }),
      );
      const nc = { spec: peeringSpec, status: { observed: { bgpSessions: sessions } } };
      expect(peeringCounts([nc]).get('workloads')).toEqual({ nodes: 1, established: 1 });
    });

    it("installs the announced prefixes the import items allow in the VRF's table, and no others", () => {
      const routes = p().vrfRoutes ?? [];
      expect(routes.find((x) => x.dst === WORKLOAD.allowed)?.protocol, JSON.stringify(routes)).toBe('bgp');
      expect(routes.map((x) => x.dst)).not.toContain(WORKLOAD.refused);
    });

    it("announces the node's loopback to the workload through the peering's export", () => {
      expect((p().workloadRoutes ?? []).map((x) => x.dst)).toContain(loopback());
    });

    it(`tears the session down once the workload has more than maxPrefixes (${MAX_PREFIXES}) allowed prefixes`, () => {
      expect(p().droppedAfter).toBeGreaterThan(p().droppedBefore ?? Infinity);
      expect((p().maxPrefixLog ?? []).join('\n')).toMatch(
        new RegExp(
          `NOTIFICATION.*sent to neighbor ${WORKLOAD.address.replace(/\./g, '\\.')}\\b.*Cease/Maximum Number of Prefixes Reached`,
        ),
      );
    });
  });
});
