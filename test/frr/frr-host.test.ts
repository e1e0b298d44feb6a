/**
 * The FRR driver against two real FRR instances (Debian's daemons, started by hand) in two network
 * namespaces joined by a veth pair: the node (`vd.hv`, the default-VRF end of VRF `hv`'s leaking
 * session, rendered by nodenet) and a peer standing in for the other end (`dv.hv`). The machine's
 * kernel has no VRF devices, so this covers the default-VRF path: the import and export route-maps,
 * prefix-lists and communities on the leaking session, and the whole apply / check / reload /
 * restore cycle. Per-VRF BGP and EVPN run in the VM suite (frr-vm.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PrefixItem, VrfEntry } from '@nodenet/api';
import { askDaemon, FrrApplyError, FrrDriver, resolveInstance } from '@nodenet/agent';
import { describePrivileged } from '../support/privileged.js';
import {
  eventually,
  FRR_PREREQUISITES,
  startFrr,
  type FrrNetnsInstance,
  testTemplate,
} from '@nodenet/testkit';

const id = `nnfr${process.pid % 100000}`;
const nodeNs = `${id}n`;
const peerNs = `${id}p`;
const ASN = 65010;

const nodeTemplate = testTemplate({
  hostname: 'nn-node',
  ipv4Networks: ['10.20.1.0/24', '10.20.99.0/24', '10.77.0.0/16'],
  ipv6Networks: ['fd00:20:0:1::/64', 'fd00:77::/48'],
});

const peerConfig = `frr defaults datacenter
hostname nn-peer
service integrated-vtysh-config
!
router bgp ${ASN}
 bgp router-id 10.255.0.2
 no bgp network import-check
 neighbor dv.hv interface remote-as internal
 !
 address-family ipv4 unicast
  network 10.30.1.0/24
  network 10.30.9.0/24
 exit-address-family
 !
 address-family ipv6 unicast
  neighbor dv.hv activate
  network fd00:30:0:1::/64
  network fd00:39::/48
 exit-address-family
exit
!
`;

const p = (cidr: string, seq: number, action: 'permit' | 'deny' = 'permit', le?: number): PrefixItem => ({
  cidr,
  seq,
  action,
  ...(le !== undefined ? { le } : {}),
});
const entry = (seq: number, over: Partial<VrfEntry>): VrfEntry => ({
  name: `hv-${seq}`,
  vrf: 'hv',
  vni: 100,
  import: [],
  export: [],
  aggregate: [],
  seq,
  mtu: 9000,
  ...over,
});

const base: VrfEntry = entry(10, {
  export: [
    p('10.20.99.0/24', 5, 'deny'),
    p('10.20.0.0/16', 10, 'permit', 24),
    p('fd00:20::/48', 20, 'permit', 64),
  ],
  import: [p('10.30.1.0/24', 1), p('fd00:30::/48', 2, 'permit', 64)],
  community: `${ASN}:42`,
});
const spec1 = { vrf: [base], routingTable: [] };
const spec2 = {
  vrf: [base, entry(20, { export: [p('10.77.0.0/16', 1)], community: `${ASN}:77` })],
  routingTable: [],
};

let node: FrrNetnsInstance;
let peer: FrrNetnsInstance;
let driver: FrrDriver;
let peerDriver: FrrDriver;

const sh = (cmd: string, ...args: string[]): string => execFileSync(cmd, args, { encoding: 'utf8' });

interface BgpTable {
  routes?: Record<string, { valid?: boolean }[]>;
}
/** Communities of the best path FRR holds for `prefix` (the route detail; the table view omits them). */
const communities = (inst: FrrNetnsInstance, family: 'ipv4' | 'ipv6', prefix: string): string => {
  const d = JSON.parse(inst.vtysh(`show bgp ${family} unicast ${prefix} json`)) as {
    paths?: { community?: { string?: string } }[];
  };
  return (d.paths ?? []).map((x) => x.community?.string ?? '').join(' ');
};
const routes = (inst: FrrNetnsInstance, family: 'ipv4' | 'ipv6'): BgpTable['routes'] =>
  (JSON.parse(inst.vtysh(`show bgp ${family} unicast json`)) as BgpTable).routes ?? {};

interface Neighbor {
  bgpState: string;
  bgpTimerUpMsec: number;
  bgpTimerUpEstablishedEpoch: number;
  connectionsEstablished: number;
  connectionsDropped: number;
}
const neighbor = (inst: FrrNetnsInstance, peer: string): Neighbor =>
  (JSON.parse(inst.vtysh(`show bgp neighbors ${peer} json`)) as Record<string, Neighbor>)[peer]!;

describePrivileged('FRR driver on real FRR in network namespaces', FRR_PREREQUISITES, () => {
  beforeAll(async () => {
    sh('ip', 'netns', 'add', nodeNs);
    sh('ip', 'netns', 'add', peerNs);
    // Created straight into the namespaces: no name ever exists in the shared root namespace.
    sh(
      'ip',
      'link',
      'add',
      'vd.hv',
      'netns',
      nodeNs,
      'type',
      'veth',
      'peer',
      'name',
      'dv.hv',
      'netns',
      peerNs,
    );
    for (const [ns, dev] of [
      [nodeNs, 'vd.hv'],
      [peerNs, 'dv.hv'],
    ] as const) {
      sh('ip', '-n', ns, 'link', 'set', 'lo', 'up');
      sh('ip', '-n', ns, 'link', 'set', dev, 'up');
    }
    node = startFrr(nodeNs, nodeNs);
    peer = startFrr(peerNs, peerNs);
    driver = new FrrDriver({
      template: nodeTemplate,
      settings: { asn: ASN, routerId: '10.255.0.1', vrfRouterId: '10.255.1.1' },
      confdir: node.confdir,
      pathspace: node.name,
      rundir: node.rundir,
    });
    peerDriver = new FrrDriver({
      template: nodeTemplate,
      settings: { asn: ASN, routerId: '10.255.0.2' },
      confdir: peer.confdir,
      pathspace: peer.name,
      rundir: peer.rundir,
    });
    await eventually(async () => (await driver.status()).answering, 20_000);
    await eventually(async () => (await peerDriver.status()).answering, 20_000);
    await peerDriver.apply(peerConfig);
    const first = await driver.applySpec(spec1);
    expect(first.changed).toBe(true);
  }, 120_000);

  afterAll(() => {
    node?.stop();
    peer?.stop();
    for (const ns of [nodeNs, peerNs]) {
      try {
        sh('ip', 'netns', 'del', ns);
      } catch {
        /* not created */
      }
    }
  });

  it('brings the leaking session up and reports it established', async () => {
    const st = await eventually(async () => {
      const s = await driver.status({ sessions: [{ peer: 'vd.hv' }] });
      return s.healthy ? s : undefined;
    });
    expect(st).toMatchObject({
      answering: true,
      healthy: true,
      sessions: [{ peer: 'vd.hv', vrf: 'default', state: 'Established' }],
    });
  }, 90_000);

  it('reports a session FRR does not have, and an instance that does not answer', async () => {
    const st = await driver.status({
      sessions: [{ peer: 'vd.hv' }, { peer: 'vd.nope' }, { peer: 'dv.hv', vrf: 'vr.hv' }],
    });
    expect(st.answering).toBe(true);
    expect(st.healthy).toBe(false);
    expect(st.sessions.map((s) => [s.peer, s.state])).toEqual([
      ['vd.hv', 'Established'],
      ['vd.nope', 'NotConfigured'],
      // The VRF instance is configured but its VRF device does not exist on this kernel.
      ['dv.hv', expect.not.stringMatching(/^Established$/)],
    ]);
    expect(st.message).toContain('vd.nope');
    const dead = new FrrDriver({
      template: nodeTemplate,
      settings: { asn: ASN, routerId: '10.255.0.1' },
      confdir: node.confdir,
      pathspace: `${id}x`,
    });
    const d = await dead.status({ sessions: [{ peer: 'vd.hv' }] });
    expect(d).toMatchObject({ answering: false, healthy: false });
    expect(d.message).toBeTruthy();
  });

  it("answers show commands over the daemons' vty sockets as through vtysh, a refusal as an answer", async () => {
    const [vrfVni, running, refused] = await askDaemon(
      driver.instance,
      'zebra',
      ['show vrf vni json', 'show running-config', 'show nothing at all'],
      10_000,
    );
    expect(vrfVni).toEqual({ ok: true, text: node.vtysh('show vrf vni json') });
    expect(running).toMatchObject({ ok: true, text: expect.stringContaining('ip prefix-list') });
    expect(refused).toMatchObject({ ok: false, error: expect.stringContaining('Unknown command') });
    const [bgp] = await askDaemon(driver.instance, 'bgpd', ['show bgp vrfs json'], 10_000);
    expect(bgp).toEqual({ ok: true, text: node.vtysh('show bgp vrfs json') });
    const dead = resolveInstance({ pathspace: `${id}x` });
    await expect(askDaemon(dead, 'zebra', ['show version'], 10_000)).rejects.toThrow(/zebra\.vty/);
  });

  it('exports routes the export prefix-list permits and no others', async () => {
    const v4 = await eventually(() => {
      const r = routes(peer, 'ipv4')!;
      return r['10.20.1.0/24'] ? r : undefined;
    });
    expect(Object.keys(v4!)).toContain('10.20.1.0/24');
    expect(Object.keys(v4!)).not.toContain('10.20.99.0/24'); // deny item before the permit range
    expect(Object.keys(v4!)).not.toContain('10.77.0.0/16'); // matched by no entry
    const v6 = await eventually(() => {
      const r = routes(peer, 'ipv6')!;
      return r['fd00:20:0:1::/64'] ? r : undefined;
    });
    expect(Object.keys(v6!)).toContain('fd00:20:0:1::/64');
    expect(Object.keys(v6!)).not.toContain('fd00:77::/48');
  }, 90_000);

  it('sets the community on exported routes', () => {
    expect(communities(peer, 'ipv4', '10.20.1.0/24').split(' ')).toContain(`${ASN}:42`);
    expect(communities(peer, 'ipv6', 'fd00:20:0:1::/64').split(' ')).toContain(`${ASN}:42`);
  });

  it('imports only what the import prefix-list permits', async () => {
    const v4 = await eventually(() => {
      const r = routes(node, 'ipv4')!;
      return r['10.30.1.0/24'] ? r : undefined;
    });
    expect(Object.keys(v4!)).toContain('10.30.1.0/24');
    expect(Object.keys(v4!)).not.toContain('10.30.9.0/24');
    const v6 = await eventually(() => {
      const r = routes(node, 'ipv6')!;
      return r['fd00:30:0:1::/64'] ? r : undefined;
    });
    expect(Object.keys(v6!)).not.toContain('fd00:39::/48');
  }, 90_000);

  it('leaves an unchanged config alone: no write, no reload', async () => {
    const file = join(node.confdir, 'frr.conf');
    const before = statSync(file).mtimeMs;
    const r = await driver.applySpec(spec1);
    expect(r).toEqual({ changed: false, durationMs: 0 });
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it('applies a changed config without restarting bgpd', async () => {
    const pid = node.pid('bgpd');
    const r = await driver.applySpec(spec2);
    expect(r.changed).toBe(true);
    expect(readFileSync(join(node.confdir, 'frr.conf'), 'utf8')).toBe(driver.render(spec2));
    // frr-reload applies the new lines one by one, so the peer may first hold the route without
    // the community (its export entry's `set` line not yet in); wait for the converged route.
    const hasCommunity = () => communities(peer, 'ipv4', '10.77.0.0/16').split(' ').includes(`${ASN}:77`);
    expect(await eventually(hasCommunity)).toBe(true);
    expect(node.pid('bgpd')).toBe(pid);
    process.kill(pid, 0); // still the same, running process
  }, 90_000);

  it('refuses a config that fails the dry run and leaves file and running config unchanged', async () => {
    const file = join(node.confdir, 'frr.conf');
    const fileBefore = readFileSync(file, 'utf8');
    const runningBefore = await driver.runningConfig();
    const bad = driver
      .render(spec1)
      .replace('router bgp 65010\n', 'router bgp 65010\n bgp no-such-command 1\n');
    const err = await driver.apply(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FrrApplyError);
    expect(err).toMatchObject({ step: 'check' });
    expect((err as FrrApplyError).frrMessage).toMatch(/Unknown command.*no-such-command/);
    expect(readFileSync(file, 'utf8')).toBe(fileBefore);
    expect(await driver.runningConfig()).toBe(runningBefore);
  });

  it('restores the previous file and running config when the reload fails', async () => {
    const file = join(node.confdir, 'frr.conf');
    const fileBefore = readFileSync(file, 'utf8');
    // Valid syntax (vtysh -C accepts it), refused by the daemon: ge must exceed the prefix length.
    const bad = driver.render(spec1) + 'ip prefix-list nn_bad seq 5 permit 10.0.0.0/16 ge 8\n';
    const err = await driver.apply(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FrrApplyError);
    expect(err).toMatchObject({ step: 'reload', restored: true });
    expect((err as FrrApplyError).frrMessage).toContain('Invalid prefix range for 10.0.0.0/16');
    expect(readFileSync(file, 'utf8')).toBe(fileBefore);
    const running = await driver.runningConfig();
    expect(running).not.toContain('nn_bad');
    // spec2 was in force before the failed attempt; its parts are back in the running config.
    expect(running).toContain('pl_hv_export_20');
    expect(running).toContain(`set community ${ASN}:77 additive`);
  }, 90_000);

  it('restore() goes back to the file the last apply replaced', async () => {
    await driver.applySpec(spec1);
    expect(await driver.runningConfig()).not.toContain('pl_hv_export_20');
    await driver.restore();
    expect(readFileSync(join(node.confdir, 'frr.conf'), 'utf8')).toBe(driver.render(spec2));
    expect(await driver.runningConfig()).toContain('pl_hv_export_20');
  }, 90_000);

  it('adds a VRF to a running config and removes it again, leaving nothing behind', async () => {
    const spec3 = {
      vrf: [
        ...spec2.vrf,
        { ...entry(10, { export: [p('10.88.0.0/16', 1)] }), name: 'hw-10', vrf: 'hw', vni: 200 },
      ],
      routingTable: [],
    };
    await driver.applySpec(spec3);
    const vnis = JSON.parse(node.vtysh('show vrf vni json')) as { vrfs: { vrf: string; vni: number }[] };
    expect(vnis.vrfs.map((v) => [v.vrf, v.vni])).toEqual([
      ['vr.hv', 100],
      ['vr.hw', 200],
    ]);
    // The VNI belongs to the VRF, not to the default VRF (frr-golden-reload.test.ts has the case
    // that sent it there before the VRFs were prepared).
    expect((await driver.runningConfig()).split('\n')).not.toContain('vni 200');
    expect(await driver.drift()).toEqual({ toAdd: [], toDelete: [] });
    await driver.applySpec(spec2);
    const bgp = JSON.parse(node.vtysh('show bgp vrfs json')) as { vrfs: Record<string, unknown> };
    expect(Object.keys(bgp.vrfs).sort()).toEqual(['default', 'vr.hv']);
  }, 120_000);

  it('a second reload of the unchanged file changes nothing and leaves the BGP session running', async () => {
    await eventually(() => neighbor(node, 'vd.hv').bgpState === 'Established');
    const before = { node: neighbor(node, 'vd.hv'), peer: neighbor(peer, 'dv.hv') };
    expect(await driver.drift()).toEqual({ toAdd: [], toDelete: [] });
    const r = await driver.apply(driver.render(spec2), { force: true });
    expect(r.changed).toBe(false);
    // bgpd reports the uptime in whole seconds: a reload faster than a second would leave it equal.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const after = { node: neighbor(node, 'vd.hv'), peer: neighbor(peer, 'dv.hv') };
    for (const side of ['node', 'peer'] as const) {
      expect(after[side].bgpState).toBe('Established');
      // FRR derives the epoch from its clock minus the uptime: the same session may move by the
      // rounding second; a reset would also count a new connection (checked next).
      expect(
        Math.abs(after[side].bgpTimerUpEstablishedEpoch - before[side].bgpTimerUpEstablishedEpoch),
      ).toBeLessThanOrEqual(1);
      expect(after[side].connectionsEstablished).toBe(before[side].connectionsEstablished);
      expect(after[side].connectionsDropped).toBe(before[side].connectionsDropped);
      // The uptime kept counting through the reload.
      expect(after[side].bgpTimerUpMsec).toBeGreaterThan(before[side].bgpTimerUpMsec);
    }
  }, 120_000);

  it('changes a route-map the session uses by the fast path: the session stays, the change takes', async () => {
    await eventually(() => neighbor(node, 'vd.hv').bgpState === 'Established');
    const before = { node: neighbor(node, 'vd.hv'), peer: neighbor(peer, 'dv.hv') };
    // rm4_hv_export is the session's outbound route-map: a new community on its entry 10.
    const spec = { ...spec2, vrf: [{ ...base, community: `${ASN}:43` }, spec2.vrf[1]!] };
    const r = await driver.applySpec(spec);
    expect(r.path).toBe('fast');
    expect(await driver.drift()).toEqual({ toAdd: [], toDelete: [] });
    await eventually(() => communities(peer, 'ipv4', '10.20.1.0/24').split(' ').includes(`${ASN}:43`));
    expect(communities(peer, 'ipv4', '10.20.1.0/24').split(' ')).not.toContain(`${ASN}:42`);
    const after = { node: neighbor(node, 'vd.hv'), peer: neighbor(peer, 'dv.hv') };
    for (const side of ['node', 'peer'] as const) {
      expect(after[side].bgpState).toBe('Established');
      expect(after[side].connectionsEstablished).toBe(before[side].connectionsEstablished);
      expect(after[side].connectionsDropped).toBe(before[side].connectionsDropped);
      expect(after[side].bgpTimerUpMsec).toBeGreaterThan(before[side].bgpTimerUpMsec);
    }
    expect((await driver.applySpec(spec2)).path).toBe('fast');
  }, 120_000);

  it("writes a fast-path change straight to the daemons' sockets: no vtysh run, both daemons changed", async () => {
    // A driver whose vtysh logs each run: the change and its read-back must not start one.
    const bin = mkdtempSync(join(tmpdir(), 'nn-vtysh-'));
    const log = join(bin, 'runs');
    writeFileSync(join(bin, 'vtysh'), `#!/bin/sh\necho "$*" >> ${log}\nexec /usr/bin/vtysh "$@"\n`, {
      mode: 0o755,
    });
    const logged = new FrrDriver({
      template: nodeTemplate,
      settings: { asn: ASN, routerId: '10.255.0.1', vrfRouterId: '10.255.1.1' },
      confdir: node.confdir,
      pathspace: node.name,
      rundir: node.rundir,
      bindir: bin,
    });
    expect(await logged.syncSpec(spec2)).toMatchObject({ changed: false });
    writeFileSync(log, '');
    const denied = entry(20, { export: [p('10.77.0.0/16', 1, 'deny')], community: `${ASN}:77` });
    expect(await logged.applySpec({ ...spec2, vrf: [base, denied] })).toMatchObject({ path: 'fast' });
    expect(readFileSync(log, 'utf8')).toBe('');
    for (const daemon of ['zebra', 'bgpd']) {
      const [list] = await askDaemon(driver.instance, daemon, ['show running-config'], 10_000);
      expect(list).toMatchObject({
        ok: true,
        text: expect.stringContaining('pl_hv_export_20 seq 1 deny 10.77.0.0/16'),
      });
    }
    expect(await driver.drift()).toEqual({ toAdd: [], toDelete: [] });
    // A line of the VRF's BGP instance: read back from bgpd's own running config, over its socket too.
    const aggregated = { ...spec2, vrf: [{ ...base, aggregate: ['10.20.0.0/16'] }, spec2.vrf[1]!] };
    expect(await logged.applySpec(aggregated)).toMatchObject({ path: 'fast' });
    expect(await driver.runningConfig()).toContain('  aggregate-address 10.20.0.0/16\n');
    expect(await logged.applySpec(spec2)).toMatchObject({ path: 'fast' });
    expect(readFileSync(log, 'utf8')).toBe('');
    expect(await driver.drift()).toEqual({ toAdd: [], toDelete: [] });
    rmSync(bin, { recursive: true, force: true });
  }, 120_000);

  it('falls back to frr-reload.py when a daemon refuses a fast-path command, and restores when that fails', async () => {
    // A range FRR's northbound refuses (the mask is longer than `le`); vtysh -C does not look at it.
    const good = driver.render(spec2);
    const refused = good.replace(
      'ip prefix-list pl_hv_export_20 seq 1 permit 10.77.0.0/16',
      'ip prefix-list pl_hv_export_20 seq 1 permit 10.77.0.0/16 le 8',
    );
    expect(refused).not.toBe(good);
    const err = await driver.apply(refused).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FrrApplyError);
    expect(err).toMatchObject({ restored: true });
    expect((err as FrrApplyError).frrMessage).toContain('Invalid prefix range');
    expect(readFileSync(join(node.confdir, 'frr.conf'), 'utf8')).toBe(good);
    expect(await driver.drift()).toEqual({ toAdd: [], toDelete: [] });
    const denied = entry(20, { export: [p('10.77.0.0/16', 1, 'deny')], community: `${ASN}:77` });
    expect((await driver.applySpec({ ...spec2, vrf: [base, denied] })).path).toBe('reload');
    expect((await driver.applySpec(spec2)).path).toBe('fast');
  }, 120_000);

  it('reloads when the read-back of a fast path finds the touched list other than the file says', async () => {
    // A line added by hand to the list the next change touches: the command takes, the list is not the file's.
    node.vtysh('configure terminal', 'ip prefix-list pl_hv_export_20 seq 7 permit 10.78.0.0/16');
    const denied = entry(20, { export: [p('10.77.0.0/16', 1, 'deny')], community: `${ASN}:77` });
    const r = await driver.applySpec({ ...spec2, vrf: [base, denied] });
    expect(r.path).toBe('reload');
    expect(await driver.runningConfig()).toContain('ip prefix-list pl_hv_export_20 seq 1 deny 10.77.0.0/16');
    expect(await driver.runningConfig()).not.toContain('10.78.0.0/16');
    expect(await driver.drift()).toEqual({ toAdd: [], toDelete: [] });
    expect((await driver.applySpec(spec2)).path).toBe('fast');
  }, 120_000);

  it('repairs a change made by hand through vtysh at the next sync, and says what differed', async () => {
    // Two quiet syncs first: the second finds the daemons showing what they showed at the first,
    // which must not hide the change below (the drift check's memory, frr/drift.ts).
    for (let i = 0; i < 2; i++) expect(await driver.syncSpec(spec2)).toMatchObject({ changed: false });
    node.vtysh('configure terminal', 'no ip prefix-list pl_hv_export_20');
    node.vtysh('configure terminal', 'route-map rm4_hv_import permit 10', 'set local-preference 50');
    const drift = await driver.drift();
    expect(drift.toAdd).toContain('ip prefix-list pl_hv_export_20 seq 1 permit 10.77.0.0/16');
    expect(drift.toDelete).toContain('route-map rm4_hv_import permit 10 / no set local-preference 50');
    const r = await driver.syncSpec(spec2);
    expect(r).toMatchObject({ changed: true, drift });
    const running = await driver.runningConfig();
    expect(running).toContain('ip prefix-list pl_hv_export_20 seq 1 permit 10.77.0.0/16');
    expect(running).not.toContain('set local-preference 50');
    expect(await driver.syncSpec(spec2)).toMatchObject({
      changed: false,
      drift: { toAdd: [], toDelete: [] },
    });
    await eventually(() => routes(peer, 'ipv4')!['10.77.0.0/16']);
  }, 120_000);

  it('fails an apply whose result FRR does not run (a route-map named, never defined) and restores', async () => {
    const file = join(node.confdir, 'frr.conf');
    const fileBefore = readFileSync(file, 'utf8');
    // vtysh -C and frr-reload.py both accept a reference to a route-map nobody defines.
    const bad = driver
      .render(spec2)
      .replace(
        '  network 10.20.1.0/24\n',
        '  network 10.20.1.0/24\n  redistribute static route-map rm_nowhere\n',
      );
    expect(bad).toContain('rm_nowhere');
    const err = await driver.apply(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FrrApplyError);
    expect(err).toMatchObject({ step: 'verify', restored: true });
    expect((err as FrrApplyError).frrMessage).toContain('route-map rm_nowhere is not defined in FRR');
    expect(readFileSync(file, 'utf8')).toBe(fileBefore);
    expect(await driver.runningConfig()).not.toContain('rm_nowhere');
    expect(await driver.drift()).toEqual({ toAdd: [], toDelete: [] });
  }, 120_000);
});
