/**
 * The agent as deploy/ runs it: the real binary under exactly the DaemonSet's securityContext (user,
 * capabilities, groups, no new privileges; applied with `setpriv`) applies a config to real FRR and
 * restores the previous one after a failed health check, with FRR's config directory owned and
 * moded as Debian ships it (drwxr-x--- frr:frr, files rw-r----- frr:frr). FRR's files stay frr:frr.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeConfigSpec, NodeConfigStatus } from '@nodenet/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { describePrivileged } from '../support/privileged.js';
import {
  FRR_PREREQUISITES,
  AgentCluster,
  l2Entry,
  layer2Spec,
  PEER_ADDR,
  repoRoot,
  type NodeEnv,
} from '@nodenet/testkit';

interface SecurityContext {
  runAsUser?: number;
  capabilities?: { add?: string[]; drop?: string[] };
  allowPrivilegeEscalation?: boolean;
}

/** The agent container's securityContext from the rendered deploy/. */
function shippedSecurityContext(): { sc: SecurityContext; supplementalGroups: number[] } {
  const rendered = execFileSync('kubectl', ['kustomize', join(repoRoot, 'deploy')], { encoding: 'utf8' });
  const ds = parseAllDocuments(rendered)
    .map((d) => d.toJSON() as { kind: string; spec: { template: { spec: Record<string, unknown> } } })
    .find((d) => d.kind === 'DaemonSet')!;
  const pod = ds.spec.template.spec as {
    containers: { securityContext: SecurityContext }[];
    securityContext?: { supplementalGroups?: number[] };
  };
  return {
    sc: pod.containers[0]!.securityContext,
    supplementalGroups: pod.securityContext?.supplementalGroups ?? [],
  };
}

/** setpriv arguments giving a process what the container runtime gives the container. */
function setprivArgs(sc: SecurityContext, groups: number[]): string[] {
  expect(sc.capabilities?.drop).toEqual(['ALL']);
  const caps = (sc.capabilities?.add ?? []).map((c) => `+${c.toLowerCase()}`).join(',');
  const set = caps ? `-all,${caps}` : '-all';
  return [
    'setpriv',
    `--reuid=${sc.runAsUser ?? 0}`,
    `--regid=${sc.runAsUser ?? 0}`,
    ...(groups.length ? [`--groups=${groups.join(',')}`] : ['--clear-groups']),
    `--bounding-set=${set}`,
    `--inh-caps=${set}`,
    ...(sc.allowPrivilegeEscalation === false ? ['--no-new-privs'] : []),
    '--',
  ];
}

function frrIds(): { uid: number; gid: number } {
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'frr'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Debian's ownership and modes on the instance's config directory. */
function debianModes(confdir: string): void {
  const { uid, gid } = frrIds();
  const walk = (dir: string): void => {
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o750);
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        chownSync(p, uid, gid);
        chmodSync(p, 0o640);
      }
    }
  };
  walk(confdir);
}

const GOOD = layer2Spec([l2Entry(100, ['10.100.0.1/24'])]);
/** A second network whose gateway takes the peer's address: the health check fails, the agent restores. */
const BAD = layer2Spec([l2Entry(100, ['10.100.0.1/24']), l2Entry(200, [`${PEER_ADDR}/24`])]);

let cluster: AgentCluster;
let h: NodeEnv;
let goodFrrConf = '';

const assign = (s: NodeConfigSpec): Promise<number> => cluster.assign('node-1', s);
const waitForStatus = (what: string, pred: (s: NodeConfigStatus) => boolean): Promise<NodeConfigStatus> =>
  cluster.waitForStatus('node-1', what, pred, 60_000);

const frrConfOwner = (): { uid: number; gid: number; mode: number } => {
  const st = statSync(join(h.frr.confdir, 'frr.conf'));
  return { uid: st.uid, gid: st.gid, mode: st.mode & 0o777 };
};

describePrivileged(
  "nodenet-agent under the DaemonSet's securityContext (setpriv, Debian FRR modes)",
  { ...FRR_PREREQUISITES, commands: [...FRR_PREREQUISITES.commands, 'setpriv', 'kubectl'] },
  () => {
    const { sc, supplementalGroups } = shippedSecurityContext();
    const wrap = setprivArgs(sc, supplementalGroups);

    beforeAll(async () => {
      cluster = new AgentCluster(`pv${process.pid % 1000}`);
      await cluster.setUp();
      h = await cluster.addNode('node-1');
      writeFileSync(join(h.frr.confdir, 'frr.conf'), 'frr defaults datacenter\n');
      debianModes(h.frr.confdir);
    }, 120_000);
    afterAll(async () => {
      await cluster?.tearDown();
    });

    it('the modes bite: root with NET_ADMIN alone (the old securityContext) cannot read frr.conf', () => {
      const old = setprivArgs({ runAsUser: 0, capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] } }, []);
      expect(() =>
        execFileSync(old[0]!, [...old.slice(1), 'cat', join(h.frr.confdir, 'frr.conf')], { stdio: 'pipe' }),
      ).toThrow(/Permission denied/);
    });

    it('applies a config to FRR and reports provisioned; frr.conf stays frr:frr, now 0600 (it may hold BGP passwords)', async () => {
      const agent = h.startAgent({ wrap });
      await assign(GOOD);
      const status = await waitForStatus('provisioned', (s) => s.configStatus === 'provisioned');
      expect(status.lastAppliedRevision).toBe(GOOD.revision);
      expect(h.frr.vtysh('show running-config')).toMatch(/router bgp 65001/);
      expect(frrConfOwner()).toEqual({ ...frrIds(), mode: 0o600 });
      goodFrrConf = readFileSync(join(h.frr.confdir, 'frr.conf'), 'utf8');
      // The process really ran with the shipped capability set and no more.
      const procStatus = readFileSync(`/proc/${agent.process.pid}/status`, 'utf8');
      const eff = BigInt(`0x${/CapEff:\s*([0-9a-f]+)/.exec(procStatus)![1]}`);
      const bit = { NET_ADMIN: 12n, DAC_OVERRIDE: 1n, CHOWN: 0n } as Record<string, bigint>;
      const want = (sc.capabilities?.add ?? []).reduce((m, c) => m | (1n << bit[c]!), 0n);
      expect(eff).toBe(want);
      // vtysh's show commands work under it too: the observed state is read whole.
      const observed = await waitForStatus('observed state', (s) => s.observed?.frrVersion !== undefined);
      expect(observed.observed?.error).toBeUndefined();
    }, 90_000);

    it('restores the previous FRR config after a failed health check and reports invalid', async () => {
      await assign(BAD);
      const status = await waitForStatus('invalid', (s) => s.configStatus === 'invalid');
      expect(status.message).toMatch(/^health check failed: .*restored/);
      expect(status.lastAppliedRevision).toBe(GOOD.revision);
      expect(readFileSync(join(h.frr.confdir, 'frr.conf'), 'utf8')).toBe(goodFrrConf);
      expect(h.frr.vtysh('show running-config')).toMatch(/router bgp 65001/);
      expect(frrConfOwner()).toEqual({ ...frrIds(), mode: 0o600 });
    }, 90_000);
  },
);
