/**
 * A BGPPeering on real FRR (issue #28): a "workload" network namespace on the node's Layer-2 subnet
 * runs its own FRR and peers with the node's FRR through the listen range nodenet renders. The
 * machine's kernel has no VRF devices, so the peering is in the default VRF here (the VM suite covers
 * VRFs); the rendering is the same peer-group in another `router bgp` instance.
 * - announced prefixes inside the import items land in the node's kernel table, others do not;
 * - BFD comes up through the peering's profile, and an unrelated reload keeps both the BGP session
 *   and the BFD session (same connection counts: nothing flapped).
 * - the peer-group requires TCP-MD5 (`neighbor pp_workloads password`, issue 41): FRR sets it on the
 *   listen socket for the range, and a reload leaves it (no drift, no flap);
 * - more allowed prefixes than `maxPrefixes` tear the session down (the node sends Cease / Maximum
 *   Number of Prefixes Reached). bgpd checks the limit on the UPDATE after its count passed it.
 * - the outbound guard (issue #37): the workload's routes carry no-advertise, announced to no peer;
 * - the issue's default-route leak: taken as it is, the workload's 0.0.0.0/0 becomes the node's
 *   kernel default route; through validation it is refused before it reaches FRR, and the route goes.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FrrDriver, OBSERVED_COMMANDS, parseBgpSessions } from '@nodenet/agent';
import {
  API_VERSION,
  buildConfig,
  inputsToBuild,
  nodeConfigSpec,
  peeringCounts,
  type Inputs,
  type NodeBgpPeeringEntry,
} from '@nodenet/api';
import { describePrivileged } from '../support/privileged.js';
import {
  eventually,
  FRR_PREREQUISITES,
  FRR_SBIN,
  startFrr,
  testTemplate,
  type FrrNetnsInstance,
} from '@nodenet/testkit';

const id = `nnbp${process.pid % 100000}`;
const nodeNs = `${id}n`;
const workloadNs = `${id}w`;
const NODE_ASN = 65010;
const WORKLOAD_ASN = 65100;
const DAEMONS = ['zebra', 'bgpd', 'bfdd'];

/** The password the node reads for the peering's hash (the agent's password book, here a constant). */
const MD5 = 'md5-listen-range';
const MD5_HASH = `hmac-sha256:${'0'.repeat(64)}`;
const workloads: NodeBgpPeeringEntry = {
  name: 'workloads',
  listenRanges: ['10.70.0.0/24'],
  neighbors: [],
  password: { secret: 'workloads-md5', key: 'password', hash: MD5_HASH },
  remoteAS: 'external',
  addressFamilies: ['ipv4'],
  maxPrefixes: { ipv4: 3 },
  import: [{ cidr: '10.96.0.0/12', seq: 10, action: 'permit', le: 32 }],
  export: [],
  importCommunities: [],
  bfd: { receiveInterval: 300, transmitInterval: 300, detectMultiplier: 3 },
};
const spec = { vrf: [], routingTable: [], bgpPeering: [workloads] };
/** An unrelated change the fast path can not express (a routing table): the driver reloads. */
const specWithOther = { ...spec, routingTable: [{ name: 'taas-5000', tableId: 5000 }] };

const workloadConfig = (networks: string[]): string => `frr defaults datacenter
hostname nn-workload
service integrated-vtysh-config
!
router bgp ${WORKLOAD_ASN}
 bgp router-id 10.70.0.5
 no bgp ebgp-requires-policy
 no bgp network import-check
 neighbor 10.70.0.1 remote-as ${NODE_ASN}
 neighbor 10.70.0.1 bfd
 neighbor 10.70.0.1 password ${MD5}
 !
 address-family ipv4 unicast
${networks.map((n) => `  network ${n}`).join('\n')}
 exit-address-family
exit
!
`;

let node: FrrNetnsInstance;
let workload: FrrNetnsInstance;
let driver: FrrDriver;
let workloadDriver: FrrDriver;

const sh = (cmd: string, ...args: string[]): string => execFileSync(cmd, args, { encoding: 'utf8' });

interface Neighbor {
  bgpState: string;
  connectionsEstablished: number;
  connectionsDropped: number;
  lastNotificationReason?: string;
  lastResetDueTo?: string;
}
const neighbor = (inst: FrrNetnsInstance, peer: string): Neighbor | undefined =>
  (JSON.parse(inst.vtysh(`show bgp neighbors ${peer} json`)) as Record<string, Neighbor>)[peer];
const bgpRoute = (prefix: string): { paths?: { community?: { list?: string[] } }[] } =>
  JSON.parse(node.vtysh(`show bgp ipv4 unicast ${prefix} json`)) as never;
const kernelRoutes = (): string[] =>
  (JSON.parse(sh('ip', '-n', nodeNs, '-json', 'route', 'show', 'proto', 'bgp')) as { dst: string }[]).map(
    (r) => r.dst,
  );
interface BfdPeer {
  peer: string;
  status: string;
  uptime?: number;
}
const bfdPeer = (inst: FrrNetnsInstance, peer: string): BfdPeer | undefined =>
  (JSON.parse(inst.vtysh('show bfd peers json')) as BfdPeer[]).find((p) => p.peer === peer);

describePrivileged(
  'BGPPeering on real FRR: a workload peers through the listen range',
  { ...FRR_PREREQUISITES, commands: [...FRR_PREREQUISITES.commands, `${FRR_SBIN}/bfdd`] },
  () => {
    beforeAll(async () => {
      sh('ip', 'netns', 'add', nodeNs);
      sh('ip', 'netns', 'add', workloadNs);
      // The node's end stands for the Layer-2 network's bridge with its anycast gateway address.
      sh(
        'ip',
        'link',
        'add',
        'l2.70',
        'netns',
        nodeNs,
        'type',
        'veth',
        'peer',
        'name',
        'eth0',
        'netns',
        workloadNs,
      );
      for (const [ns, dev, addr] of [
        [nodeNs, 'l2.70', '10.70.0.1/24'],
        [workloadNs, 'eth0', '10.70.0.5/24'],
      ] as const) {
        sh('ip', '-n', ns, 'link', 'set', 'lo', 'up');
        sh('ip', '-n', ns, 'addr', 'add', addr, 'dev', dev);
        sh('ip', '-n', ns, 'link', 'set', dev, 'up');
      }
      node = startFrr(nodeNs, nodeNs, DAEMONS);
      workload = startFrr(workloadNs, workloadNs, DAEMONS);
      driver = new FrrDriver({
        template: testTemplate({ hostname: 'nn-node' }),
        settings: {
          asn: NODE_ASN,
          routerId: '10.255.0.1',
          passwords: (h) => (h === MD5_HASH ? MD5 : undefined),
        },
        confdir: node.confdir,
        pathspace: node.name,
        rundir: node.rundir,
      });
      workloadDriver = new FrrDriver({
        template: testTemplate({ hostname: 'nn-workload' }),
        settings: { asn: WORKLOAD_ASN, routerId: '10.70.0.5' },
        confdir: workload.confdir,
        pathspace: workload.name,
        rundir: workload.rundir,
      });
      await eventually(async () => (await driver.status()).answering, 20_000);
      await eventually(async () => (await workloadDriver.status()).answering, 20_000);
      expect((await driver.applySpec(spec)).changed).toBe(true);
      await workloadDriver.apply(workloadConfig(['10.96.1.0/24', '10.200.0.0/16']));
    }, 120_000);

    afterAll(() => {
      node?.stop();
      workload?.stop();
      for (const ns of [nodeNs, workloadNs]) {
        try {
          sh('ip', 'netns', 'del', ns);
        } catch {
          /* not created */
        }
      }
    });

    it('establishes the session from the workload through the listen range, with TCP-MD5', async () => {
      expect(await driver.drift()).toEqual({ toAdd: [], toDelete: [] });
      expect(node.vtysh('show running-config')).toContain(` neighbor pp_workloads password ${MD5}\n`);
      await eventually(() => neighbor(node, '10.70.0.5')?.bgpState === 'Established', 60_000);
      expect(neighbor(workload, '10.70.0.1')?.bgpState).toBe('Established');
    }, 120_000);

    it("counts the session in the peering's status, from what the agent observes", async () => {
      // What the agent reports (observed/) and what the configurator counts from it (peeringCounts).
      const bgpSessions = parseBgpSessions(node.vtysh(OBSERVED_COMMANDS.bgp), new Date());
      const nc = {
        spec: { ...spec, revision: '0'.repeat(64), layer2: [] },
        status: { observed: { bgpSessions } },
      };
      expect(peeringCounts([nc]).get('workloads')).toEqual({ nodes: 1, established: 1 });
    }, 60_000);

    it('installs the announced prefixes the import items allow, and no others', async () => {
      await eventually(() => kernelRoutes().includes('10.96.1.0/24'), 60_000);
      expect(kernelRoutes()).not.toContain('10.200.0.0/16');
    }, 120_000);

    it("keeps the workload's routes on the node: no-advertise, announced to no peer (issue #37)", async () => {
      await eventually(() => kernelRoutes().includes('10.96.1.0/24'), 60_000);
      expect(bgpRoute('10.96.1.0/24').paths?.[0]?.community?.list).toEqual(['noAdvertise']);
      expect(node.vtysh('show bgp ipv4 unicast 10.96.1.0/24')).toContain('Not advertised to any peer');
    }, 120_000);

    it('brings BFD up, and an unrelated reload flaps neither the BGP nor the BFD session', async () => {
      await eventually(() => bfdPeer(node, '10.70.0.5')?.status === 'up', 60_000);
      const before = { node: neighbor(node, '10.70.0.5')!, workload: neighbor(workload, '10.70.0.1')! };
      const r = await driver.applySpec(specWithOther);
      expect(r.changed).toBe(true);
      expect(r.path).toBe('reload');
      expect(await driver.drift()).toEqual({ toAdd: [], toDelete: [] });
      // And back: the reload removes the other peering again.
      expect((await driver.applySpec(spec)).changed).toBe(true);
      expect(await driver.drift()).toEqual({ toAdd: [], toDelete: [] });
      const after = { node: neighbor(node, '10.70.0.5')!, workload: neighbor(workload, '10.70.0.1')! };
      for (const side of ['node', 'workload'] as const) {
        expect(after[side].bgpState).toBe('Established');
        expect(after[side].connectionsEstablished).toBe(before[side].connectionsEstablished);
        expect(after[side].connectionsDropped).toBe(before[side].connectionsDropped);
      }
      expect(bfdPeer(node, '10.70.0.5')?.status).toBe('up');
      expect(bfdPeer(workload, '10.70.0.1')?.status).toBe('up');
    }, 180_000);

    it('tears the session down once the workload has more than maxPrefixes allowed prefixes', async () => {
      const dropped = neighbor(workload, '10.70.0.1')!.connectionsDropped;
      const allowed = ['10.96.1.0/24', '10.96.2.0/24', '10.96.3.0/24', '10.96.4.0/24'];
      await workloadDriver.apply(workloadConfig([...allowed, '10.200.0.0/16']));
      // bgpd counts accepted prefixes after it processed them and checks the limit on the next
      // UPDATE, so one more announcement after the count passed the limit is what trips it.
      await eventually(() => kernelRoutes().filter((r) => r.startsWith('10.96.')).length === 4, 60_000);
      await workloadDriver.apply(workloadConfig([...allowed, '10.96.5.0/24', '10.200.0.0/16']));
      const n = await eventually(() => {
        const w = neighbor(workload, '10.70.0.1');
        return w && w.connectionsDropped > dropped ? w : undefined;
      }, 60_000);
      expect(n).toBeDefined();
      // The node's bgpd sent the Cease; the workload may see BFD go down first (the dynamic peer and
      // its BFD session are deleted with the session), so the node's log is what names the cause.
      const log = readFileSync(join(node.confdir, 'bgpd.log'), 'utf8');
      expect(log).toMatch(
        /NOTIFICATION.*sent to neighbor 10\.70\.0\.5 .*Cease\/Maximum Number of Prefixes Reached/,
      );
    }, 180_000);

    it('adds and moves a neighbour peering beside the listen range without crashing frr-reload.py', async () => {
      // Under `no bgp default ipv4-unicast`, a peering moved from IPv4 to IPv6 deletes its IPv4
      // route-map lines and adds only the IPv6 address-family FRR did not show: frr-reload.py 8.4
      // crashed on that (rm_match, see reload-guard.ts).
      const template = testTemplate({ hostname: 'nn-node' }).replace(
        ' no bgp network import-check\n',
        ' no bgp network import-check\n no bgp default ipv4-unicast\n',
      );
      const explicit = new FrrDriver({
        template,
        settings: { ...driver.settings },
        confdir: node.confdir,
        pathspace: node.name,
        rundir: node.rundir,
      });
      const routers = (families: NodeBgpPeeringEntry['addressFamilies']): NodeBgpPeeringEntry => ({
        ...workloads,
        name: 'routers',
        listenRanges: [],
        neighbors: ['10.70.0.9'],
        remoteAS: '65200',
        addressFamilies: families,
        maxPrefixes: {},
        bfd: undefined,
      });
      for (const families of [['ipv4'], ['ipv6']] as const) {
        const r = await explicit.applySpec({ ...spec, bgpPeering: [workloads, routers([...families])] });
        expect(r.path).toBe('reload');
        expect(await explicit.drift()).toEqual({ toAdd: [], toDelete: [] });
      }
      expect(node.vtysh('show running-config')).toContain(
        'neighbor pp_routers route-map pp6_routers_import in',
      );
      expect(node.vtysh('show running-config')).not.toContain('pp4_routers_import in');
    }, 180_000);

    it("refuses the issue's default-route leak before it reaches FRR (issue #37)", async () => {
      // A default-VRF network whose owner opened it to peerings, but not to the default route; a
      // listen range on it importing 0.0.0.0/0 le 32; the workload announces the default route.
      const inputs: Inputs = {
        vrf: [],
        routingTable: [],
        layer2: [
          {
            apiVersion: API_VERSION,
            kind: 'Layer2NetworkConfiguration',
            metadata: { name: 'web70' },
            spec: {
              id: 70,
              vni: 10070,
              anycastMac: '02:00:00:00:00:70',
              anycastGateways: ['10.70.0.1/24'],
              peering: { defaultVrf: true },
            },
          },
        ],
        bgpPeering: [
          {
            apiVersion: API_VERSION,
            kind: 'BGPPeering',
            metadata: { name: 'leak' },
            spec: {
              listenRange: { layer2: 'web70' },
              remoteAS: 'external',
              addressFamilies: ['ipv4'],
              import: [{ cidr: '0.0.0.0/0', seq: 10, le: 32, action: 'permit' }],
            },
          },
        ],
      };
      const forFrr = (i: Inputs) => ({
        vrf: [],
        routingTable: [],
        bgpPeering: nodeConfigSpec(buildConfig(i), {}).bgpPeering ?? [],
      });
      const kernelDefault = (): boolean => kernelRoutes().includes('default');
      await workloadDriver.apply(workloadConfig(['0.0.0.0/0', '10.96.1.0/24']));
      // The harm is real: the peering as written, unchecked, puts the workload's default route into
      // the node's kernel.
      await driver.applySpec(forFrr(inputs));
      await eventually(kernelDefault, 60_000);
      // Through the configurator's validation (the node's address known from its Node status):
      // refused, naming the field, and nothing of it reaches FRR.
      const built = inputsToBuild(inputs, [], {
        underlay: { nodeAddresses: new Map([['10.255.0.1', 'nn-node']]), cidrs: ['10.255.0.0/16'] },
      });
      expect(built.effective.problems.map((p) => p.message)).toEqual([
        `BGPPeering leak: spec.import[0].cidr: imports the default route into the default VRF: allowed only by the network's spec.peering.defaultRoute or the site's --allow-default-route-import (got "0.0.0.0/0")`,
      ]);
      const checked = forFrr(built.effective.inputs!);
      expect(checked.bgpPeering).toEqual([]);
      await driver.applySpec(checked);
      expect(node.vtysh('show running-config')).not.toContain('bgp listen range');
      await eventually(() => !kernelDefault(), 60_000);
    }, 180_000);
  },
);
