/**
 * Restore what can be restored (issue 35, case 6): the real `nodenet-agent` in a network namespace,
 * real netlink and FRR, devcluster. The agent is killed (SIGKILL) in the confirm window of a change
 * that added a Layer-2 network, and restarted with a broken configuration: `--vtep-interface` names
 * no device (a bad flag in an upgrade). Its full host view of the restored revision cannot be built
 * (the VXLAN underlay is missing), so the restore fails, reported `RestoreFailed`; but what the
 * unconfirmed change added (its bridge and VXLAN) needs no VTEP to be taken back: it is removed,
 * the revision's own devices stay untouched, and the message names what was removed and what could
 * not be put back. A template vtysh refuses is the other broken configuration: the restore then
 * puts back the FRR file from before the change without rendering anything (here the change never
 * wrote it), and counts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shortHash, type NodeConfigStatus } from '@nodenet/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePrivileged } from '../support/privileged.js';
import {
  FRR_PREREQUISITES,
  AgentCluster,
  l2Entry,
  layer2Spec,
  NODE_TEMPLATE,
  type AgentRun,
  type NodeEnv,
} from '@nodenet/testkit';

const GOOD = layer2Spec([l2Entry(100, ['10.100.0.1/24'])]);
const CHANGE = layer2Spec([l2Entry(100, ['10.100.0.1/24']), l2Entry(300, ['10.103.0.1/24'])]);
const CHANGE_2 = layer2Spec([l2Entry(100, ['10.100.0.1/24']), l2Entry(310, ['10.104.0.1/24'])]);

let cluster: AgentCluster;
let h: NodeEnv;
let agent: AgentRun;

const waitForStatus = (what: string, pred: (s: NodeConfigStatus) => boolean): Promise<NodeConfigStatus> =>
  cluster.waitForStatus('node-1', what, pred, 60_000);
const identity = (name: string) => ({ name, ifindex: h.link(name)?.ifindex, master: h.link(name)?.master });

describePrivileged(
  'restore with a broken agent configuration (netns, real netlink, real FRR, devcluster)',
  FRR_PREREQUISITES,
  () => {
    beforeAll(async () => {
      cluster = new AgentCluster('rp');
      await cluster.setUp();
      h = await cluster.addNode('node-1');
    }, 120_000);
    afterAll(async () => {
      await cluster?.tearDown();
    });

    it('killed in the confirm window, restarted without its VTEP interface: removes what the change added, RestoreFailed names only what it could not put back', async () => {
      agent = h.startAgent({ confirmWindow: '0s' });
      await cluster.assign('node-1', GOOD);
      await waitForStatus('GOOD provisioned', (s) => s.configStatus === 'provisioned');
      const kept = ['l2.100', 'vx.20100'].map(identity);
      expect(kept.every((d) => d.ifindex !== undefined)).toBe(true);
      const frrBefore = readFileSync(join(h.frr.confdir, 'frr.conf'), 'utf8');
      await agent.stop();

      // A long window, killed in it: the change is on the host, unconfirmed.
      agent = h.startAgent({ confirmWindow: '120s' });
      await cluster.assign('node-1', CHANGE);
      await agent.waitForLog(
        (l) => l.msg === 'confirm window started' && l.revision === CHANGE.revision,
        60_000,
      );
      agent.process.kill('SIGKILL');
      await agent.exited;
      expect(h.link('l2.300')).toBeDefined();
      expect(h.link('vx.20300')).toBeDefined();
      expect(existsSync(join(h.stateDir, 'pending.json'))).toBe(true);

      // Restarted with a VTEP interface that does not exist.
      agent = h.startAgent({ confirmWindow: '0s', extraArgs: ['--vtep-interface', 'novtep0'] });
      const status = await waitForStatus(
        'RestoreFailed after the restart',
        (s) => s.configStatus === 'invalid' && s.failureCause === 'RestoreFailed',
      );
      // What the change added is gone; the restored revision's devices were not touched.
      expect(h.link('l2.300')).toBeUndefined();
      expect(h.link('vx.20300')).toBeUndefined();
      expect(['l2.100', 'vx.20100'].map(identity)).toEqual(kept);
      // FRR runs the restored revision's file.
      expect(readFileSync(join(h.frr.confdir, 'frr.conf'), 'utf8')).toBe(frrBefore);
      expect(status.lastAppliedRevision).toBeUndefined(); // the host may still differ: no claim
      expect(status.message).toBe(
        `agent restarted during the confirm window of revision ${shortHash(CHANGE.revision)}; restore FAILED ` +
          `(netlink: the devices of revision ${shortHash(GOOD.revision)} not put back (settings.vtepInterface="novtep0": no such device on the host); ` +
          `removed what the change added (vx.20300, l2.300)); the host may be partly configured, retrying`,
      );
    }, 180_000);

    it('killed in the confirm window of a change that did not touch FRR, restarted with a template vtysh refuses: the restore needs no rendering and counts', async () => {
      // Back to a working agent: it restores GOOD at start-up, then takes GOOD again.
      await agent.stop();
      agent = h.startAgent({ confirmWindow: '0s' });
      await cluster.assign('node-1', GOOD);
      await waitForStatus(
        'GOOD provisioned again',
        (s) => s.configStatus === 'provisioned' && s.lastAppliedRevision === GOOD.revision,
      );
      const frrBefore = readFileSync(join(h.frr.confdir, 'frr.conf'), 'utf8');
      await agent.stop();

      agent = h.startAgent({ confirmWindow: '120s' });
      await cluster.assign('node-1', CHANGE_2);
      await agent.waitForLog(
        (l) => l.msg === 'confirm window started' && l.revision === CHANGE_2.revision,
        60_000,
      );
      agent.process.kill('SIGKILL');
      await agent.exited;
      expect(h.link('l2.310')).toBeDefined();

      // Parses as a template, but vtysh refuses a line: GOOD's FRR config can not be checked.
      const broken = join(cluster.work, 'broken.conf.tpl');
      writeFileSync(
        broken,
        NODE_TEMPLATE.replace('service integrated-vtysh-config', 'no-such-frr-command 42'),
      );
      agent = h.startAgent({ confirmWindow: '0s', templateFile: broken });
      const status = await waitForStatus(
        'the restart in the window reported',
        (s) => s.configStatus === 'invalid' && (s.message ?? '').startsWith('agent restarted during'),
      );
      // The change never wrote frr.conf (a Layer-2 network is netlink only): FRR runs GOOD's file.
      expect(status).toMatchObject({ failureCause: 'Interrupted', lastAppliedRevision: GOOD.revision });
      expect(status.message).toMatch(
        new RegExp(
          `^agent restarted during the confirm window of revision ${shortHash(CHANGE_2.revision)}; restored revision ${shortHash(GOOD.revision)}; `,
        ),
      );
      expect(h.link('l2.310')).toBeUndefined();
      expect(readFileSync(join(h.frr.confdir, 'frr.conf'), 'utf8')).toBe(frrBefore);
    }, 180_000);
  },
);
