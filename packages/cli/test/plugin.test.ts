/**
 * kubectl nodenet against devcluster, every verb: objects are written as the configurator and the
 * agents write them; the plugin reads them over HTTP. `status` output is golden-tested (fixed clock).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APPLIED_NUMBER_LABEL, type NetworkConfigRevision } from '@nodenet/api';
import { run } from '@nodenet/cli';
import { kubeconfigYaml } from '@nodenet/devcluster';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  NOW,
  at,
  cli,
  createNodeConfig,
  createNodes,
  createRevision,
  golden as goldenOf,
  setInputCondition,
  inputsOf,
  layer2,
  setNodeReady,
  startTestCluster,
  type TestCluster,
} from './support.js';

const golden = (text: string): Promise<string> => goldenOf(tc, text);

const web = layer2('web', 100);
const storage = layer2('storage', 101, { nodeSelector: { matchLabels: { rack: 'r2' } } });
const A = inputsOf([web]);
const B = inputsOf([web, storage]);
const NODES = {
  'node-1': { rack: 'r1' },
  'node-2': { rack: 'r1' },
  'node-3': { rack: 'r2' },
  'node-4': { rack: 'r2' },
  'node-5': { rack: 'r3' },
};

let tc: TestCluster;
beforeEach(async () => {
  tc = await startTestCluster();
  await createNodes(tc, NODES);
});
afterEach(async () => tc.stop());

const complete = (total: number, startedAgo: number, doneAgo: number) => ({
  total,
  ready: total,
  ongoing: 0,
  queued: 0,
  failed: 0,
  startedAt: at(startedAgo),
  completedAt: at(doneAgo),
  conditions: [
    {
      type: 'Complete',
      status: 'True' as const,
      reason: 'AllNodesReady',
      message: `${total}/${total} ready`,
      lastTransitionTime: at(doneAgo),
    },
    {
      type: 'Progressing',
      status: 'False' as const,
      reason: 'RolloutComplete',
      message: `${total}/${total} ready`,
      lastTransitionTime: at(doneAgo),
    },
  ],
});
const ok = (rev: NetworkConfigRevision, secondsAgo = 900) => ({
  configStatus: 'provisioned' as const,
  onHost: rev.spec.hash,
  message: `revision ${rev.spec.hash.slice(0, 10)} applied; health: all 4 checks passed`,
  secondsAgo,
});

/** Revision 2 (adds `storage` on rack r2) half rolled out: 2 ready, node-3 applying, 2 queued. */
async function rollingOut(
  paused = false,
): Promise<{ rev1: NetworkConfigRevision; rev2: NetworkConfigRevision }> {
  const rev1 = await createRevision(tc, 1, A, complete(5, 7200, 6000));
  const rev2 = await createRevision(
    tc,
    2,
    B,
    {
      total: 5,
      ready: 2,
      ongoing: 1,
      queued: 2,
      failed: 0,
      startedAt: at(300),
      conditions: [
        {
          type: 'Complete',
          status: 'False',
          reason: paused ? 'Paused' : 'RollingOut',
          message: '2/5 ready',
          lastTransitionTime: at(300),
        },
        paused
          ? {
              type: 'Progressing',
              status: 'False',
              reason: 'Paused',
              message: 'paused: 2/5 ready',
              lastTransitionTime: at(100),
            }
          : {
              type: 'Progressing',
              status: 'True',
              reason: 'RollingOut',
              message: '2/5 ready',
              lastTransitionTime: at(300),
            },
      ],
    },
    { paused },
  );
  await handedOut(rev1, rev2);
  return { rev1, rev2 };
}

/** node-1 and node-2 took `next`, node-3 is applying it (still on `prev`), node-4 and node-5 wait on `prev`. */
async function handedOut(prev: NetworkConfigRevision, next: NetworkConfigRevision): Promise<void> {
  await createNodeConfig(tc, 'node-1', next, ok(next, 240), 290);
  await createNodeConfig(tc, 'node-2', next, ok(next, 130), 200);
  await createNodeConfig(
    tc,
    'node-3',
    next,
    {
      configStatus: 'provisioning',
      onHost: prev.spec.hash,
      message: `applying revision ${next.spec.hash.slice(0, 10)}`,
      secondsAgo: 40,
      reason: 'Applying',
    },
    45,
  );
  await createNodeConfig(tc, 'node-4', prev, ok(prev, 6100), 6200);
  await createNodeConfig(tc, 'node-5', prev, ok(prev, 6100), 6200);
}

/** Revision 2 failed on node-1 (restored, back on revision 1); node-2 took it and waits for rollback. */
async function halted(): Promise<{ rev1: NetworkConfigRevision; rev2: NetworkConfigRevision }> {
  const rev1 = await createRevision(tc, 1, A, complete(5, 7200, 6000));
  const message =
    'health check failed: tcp/peer (connection refused after 2 attempt(s)); restored revision ' +
    rev1.spec.hash.slice(0, 10);
  const rev2 = await createRevision(tc, 2, B, {
    total: 0,
    ready: 0,
    ongoing: 0,
    queued: 0,
    failed: 1,
    isInvalid: true,
    failedNodes: [{ node: 'node-1', message, at: at(60) }],
    startedAt: at(300),
    conditions: [
      {
        type: 'Invalid',
        status: 'True',
        reason: 'NodesFailed',
        message: `1 node(s) failed, more than --max-failures=0: node-1: ${message}`,
        lastTransitionTime: at(60),
      },
      {
        type: 'Progressing',
        status: 'False',
        reason: 'Invalid',
        message: 'revision is invalid',
        lastTransitionTime: at(60),
      },
    ],
  });
  await createNodeConfig(tc, 'node-1', rev1, ok(rev1, 30), 50);
  await createNodeConfig(tc, 'node-2', rev2, ok(rev2, 120), 200);
  for (const n of ['node-3', 'node-4', 'node-5']) await createNodeConfig(tc, n, rev1, ok(rev1, 6100), 6200);
  return { rev1, rev2 };
}

describe('status', () => {
  it('a rollout in progress: progress, counts, wave, nodes in progress, what happens next (golden)', async () => {
    await rollingOut();
    const r = await cli(tc, ['status', '--wave-label', 'rack']);
    expect(r.err).toBe('');
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/status-rolling-out.txt');
    expect(r.code).toBe(1);
  });

  it('nodes the revision left unchanged are counted on a line of their own (moved without a slot)', async () => {
    const { rev2 } = await rollingOut();
    const now = await tc.clients.revision.get(rev2.metadata.name);
    await tc.clients.revision.updateStatus({ ...now, status: { ...now.status, unchanged: 2 } });
    const r = await cli(tc, ['status', '2']);
    expect(r.out).toContain('Unchanged: 2 nodes unchanged by this revision (moved without a slot)');
  });

  it('a halted rollout: why, failed nodes, rollback progress, retry hint (golden)', async () => {
    await halted();
    const r = await cli(tc, ['status', '2']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/status-halted.txt');
    expect(r.code).toBe(4);
  });

  it('no argument follows the desired revision; a halt that still matters is listed above the progress (golden)', async () => {
    const { rev1 } = await halted();
    let r = await cli(tc, ['status']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/status-after-halt.txt');
    expect(r.code).toBe(4);
    // node-2 is back on the desired revision and no input produces the bad one: the halt is history.
    await tc.clients.nodeConfig.delete('node-2');
    await createNodeConfig(tc, 'node-2', rev1, ok(rev1, 10), 20);
    r = await cli(tc, ['status']);
    expect(r.out).not.toContain('Attention:');
    expect(r.out).toContain('Nothing to do: every target node runs rev-000001-');
    expect(r.code).toBe(0);
  });

  // Issue 38 item 5: the revision nodes roll back to read "Rolling out" and suggested aborting it.
  it('the revision a rollback returns to reads Restoring, never Rolling out, and suggests no abort', async () => {
    const { rev1 } = await halted();
    // As the configurator writes it while node-2 is handed its rollback: not complete just now.
    await tc.clients.nodeConfig.delete('node-2');
    await createNodeConfig(tc, 'node-2', rev1, undefined, 1);
    await tc.clients.revision.patchStatus(rev1.metadata.name, {
      status: {
        ...complete(5, 7200, 6000),
        ready: 4,
        ongoing: 1,
        conditions: [
          {
            type: 'Complete',
            status: 'False',
            reason: 'RollingOut',
            message: '4/5',
            lastTransitionTime: at(1),
          },
          {
            type: 'Progressing',
            status: 'True',
            reason: 'RollingOut',
            message: '4/5',
            lastTransitionTime: at(1),
          },
        ],
      },
    });
    const r = await cli(tc, ['status']);
    expect(r.out).toContain('State:     Restoring: nodes roll back to this revision from rev-000002-');
    expect(r.out).not.toContain('Rolling out');
    expect(r.out).not.toContain('abort');
    expect(r.out).toMatch(
      /^Next: rev-000002-\w+ is invalid: the nodes that took it .*`kubectl nodenet status rev-000002-\w+`\.$/m,
    );
    expect(r.code, 'still moving: exit 1').toBe(1);
  });

  it('complete, but a rejected input and a NotReady node are named above the progress and exit 4 (golden)', async () => {
    const rev1 = await createRevision(tc, 1, A, complete(5, 7200, 6000));
    for (const n of Object.keys(NODES)) await createNodeConfig(tc, n, rev1, ok(rev1, 6100), 6200);
    await tc.clients.layer2.create(web);
    const bad = await tc.clients.layer2.create(layer2('broken', 102));
    await tc.clients.layer2.patchStatus(bad.metadata.name, {
      status: {
        conditions: [
          {
            type: 'Accepted',
            status: 'False',
            reason: 'Invalid',
            message: 'spec.anycastGateways[0]: "10.140.0.300/24" is not a CIDR',
            lastTransitionTime: at(30),
            observedGeneration: 1,
          },
        ],
      },
    });
    await setNodeReady(tc, 'node-4', false, 90);
    const r = await cli(tc, ['status']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/status-complete-held-back.txt');
    expect(r.code).toBe(4);
  });

  it('a fleet-wide pause reads Paused and says to resume the fleet (golden)', async () => {
    await rollingOut();
    expect((await cli(tc, ['pause'])).code).toBe(0);
    const r = await cli(tc, ['status']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/status-fleet-paused.txt');
    expect(r.code).toBe(1);
  });

  it('a paused rollout says so and how to resume (golden)', async () => {
    await rollingOut(true);
    const r = await cli(tc, ['status', '2']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/status-paused.txt');
    expect(r.code).toBe(1);
  });

  it('a complete revision with a degraded node stays valid and names the node (golden)', async () => {
    const rev1 = await createRevision(tc, 1, A, {
      ...complete(5, 7200, 6000),
      degraded: 1,
      degradedNodes: [
        {
          node: 'node-5',
          message: 'no report within --preconfig-timeout (10m) after assignment',
          at: at(1200),
        },
      ],
      conditions: [
        ...complete(5, 7200, 6000).conditions,
        {
          type: 'Degraded',
          status: 'True',
          reason: 'NodesFailed',
          message: '1 node failed after the rollout completed: node-5',
          lastTransitionTime: at(1200),
        },
      ],
    });
    for (const n of ['node-1', 'node-2', 'node-3', 'node-4'])
      await createNodeConfig(tc, n, rev1, ok(rev1, 6100), 6200);
    const r = await cli(tc, ['status', 'rev-1']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/status-degraded.txt');
    expect(r.code).toBe(4);
  });

  it('a complete revision: exit 0; superseded revisions point to the one in force; -o json', async () => {
    const { rev1 } = await rollingOut();
    const done = await createRevision(tc, 3, inputsOf([web, layer2('x', 300)]), complete(5, 100, 10));
    let r = await cli(tc, ['status']);
    expect(r.out).toContain(`Revision:  ${done.metadata.name} (number 3)`);
    expect(r.out).toContain(`Nothing to do: every target node runs ${done.metadata.name}.`);
    expect(r.code).toBe(0);
    r = await cli(tc, ['status', rev1.metadata.name, '-o', 'json']);
    const view = JSON.parse(r.out) as { phase: string; inForce: string; counts: { total: number } };
    expect(view).toMatchObject({ phase: 'Superseded', inForce: done.metadata.name, counts: { total: 5 } });
    expect(r.code).toBe(0);
  });

  it('--watch redraws until the rollout completes', async () => {
    const { rev2 } = await rollingOut();
    let draws = 0;
    const watching = cli(tc, ['status', '--watch'], {
      watchIntervalMs: 50,
      stdout: {
        write: (s: string) => {
          draws += s.includes('Revision:') ? 1 : 0;
          return true;
        },
      },
    });
    await new Promise((r) => setTimeout(r, 300));
    await tc.clients.revision.patchStatus(rev2.metadata.name, { status: complete(5, 300, 0) });
    const r = await watching;
    expect(r.code).toBe(0);
    expect(draws).toBe(2);
  });

  it('unknown revision: exit 3 naming the known ones; no revision at all: exit 3', async () => {
    let r = await cli(tc, ['status']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('no NetworkConfigRevision exists yet');
    await rollingOut();
    r = await cli(tc, ['status', 'rev-9']);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/revision "rev-9" not found \(revisions: rev-000001-\w+, rev-000002-\w+\)/);
  });
});

describe('why NODE', () => {
  it('a queued node: behind the desired revision, and what happens next (golden); exit 1', async () => {
    await rollingOut();
    const r = await cli(tc, ['why', 'node-4']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/why-queued.txt');
    expect(r.code).toBe(1);
  });

  it('a NotReady node: unavailable since when, not counted, catches up (golden); exit 4', async () => {
    await rollingOut();
    await setNodeReady(tc, 'node-5', false, 120);
    const r = await cli(tc, ['why', 'node-5']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/why-not-ready.txt');
    expect(r.code).toBe(4);
  });

  it('a rolled-back node says from which revision, when and why (golden); exit 0', async () => {
    await halted();
    const r = await cli(tc, ['why', 'node-1']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/why-rolled-back.txt');
    expect(r.code).toBe(0);
  });

  it('a node on a paused fleet is held, and an unknown node exits 3', async () => {
    await rollingOut();
    await cli(tc, ['pause']);
    const r = await cli(tc, ['why', 'node-4', '-o', 'json']);
    expect(JSON.parse(r.out)).toMatchObject({
      placement: 'held',
      why: expect.stringContaining('the fleet is paused'),
    });
    expect((await cli(tc, ['why', 'node-9'])).code).toBe(3);
  });

  it('revisions that share content are told apart by number (a retry of 1 as 3)', async () => {
    const rev1 = await createRevision(tc, 1, A, complete(5, 7200, 6000));
    const rev3 = await createRevision(tc, 3, A, complete(5, 600, 60));
    await createNodeConfig(tc, 'node-1', rev3, ok(rev3, 30), 50);
    await createNodeConfig(tc, 'node-2', rev1, ok(rev1, 6100), 6200);
    const rows = JSON.parse((await cli(tc, ['nodes', '-o', 'json'])).out) as {
      node: string;
      revision: number;
    }[];
    expect(
      rows.filter((n) => n.node === 'node-1' || n.node === 'node-2').map((n) => [n.node, n.revision]),
    ).toEqual([
      ['node-1', 3],
      ['node-2', 1],
    ]);
  });
});

describe('nodes and history', () => {
  it('nodes: one row per node with desired, handed and applied revision, where it stands and why', async () => {
    await rollingOut();
    const r = await cli(tc, ['nodes']);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NODE\s+READY\s+DESIRED\s+REVISION\s+ON-HOST\s+STATE\s+AGENT\s+SINCE\s+WHY$/);
    expect(lines[3]).toMatch(
      /^node-3\s+True\s+2\s+2\s+1\s+rolling-out\s+provisioning\s+40s\s+handed rev-000002-\w+ \(number 2\) at \S+ \(forward move\); agent: provisioning$/,
    );
    expect(lines[4]).toMatch(
      /^node-4\s+True\s+2\s+1\s+1\s+queued\s+provisioned\s+\S+\s+carries rev-000001-\w+, behind rev-000002-/,
    );
    expect(lines).toHaveLength(6);
    const json = JSON.parse((await cli(tc, ['nodes', '-o', 'json'])).out) as {
      node: string;
      state: string;
      placement: string;
      revision: number;
    }[];
    expect(json.map((n) => [n.node, n.revision, n.state, n.placement])).toEqual([
      ['node-1', 2, 'provisioned', 'up-to-date'],
      ['node-2', 2, 'provisioned', 'up-to-date'],
      ['node-3', 2, 'provisioning', 'rolling-out'],
      ['node-4', 1, 'provisioned', 'queued'],
      ['node-5', 1, 'provisioned', 'queued'],
    ]);
    const yaml = parse((await cli(tc, ['nodes', '-o', 'yaml'])).out) as unknown[];
    expect(yaml).toEqual(json);
  });

  it('nodes: an agent in its confirm window shows as confirming', async () => {
    await rollingOut();
    const nc = await tc.clients.nodeConfig.get('node-3');
    const conditions = [
      ...(nc.status?.conditions ?? []),
      {
        type: 'Confirming',
        status: 'True' as const,
        reason: 'ConfirmWindow',
        message: 'checking for 30s before reporting provisioned',
        lastTransitionTime: at(5),
        observedGeneration: nc.metadata.generation ?? 1,
      },
    ];
    await tc.clients.nodeConfig.patchStatus('node-3', { status: { conditions } });
    const r = await cli(tc, ['nodes']);
    expect(r.out.split('\n')[3]).toMatch(/^node-3\s+True\s+2\s+2\s+1\s+rolling-out\s+confirming\s+40s\s/);
  });

  it('history: newest first, result, which is in force, counts, times, why invalid', async () => {
    const { rev1, rev2 } = await halted();
    const r = await cli(tc, ['history']);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^NUMBER\s+NAME\s+RESULT\s+IN-FORCE\s+READY\s+FAILED\s+DEGRADED\s+TOTAL\s+RAN-ON\s+STARTED\s+COMPLETED\s+REASON$/,
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^2\\s+${rev2.metadata.name}\\s+Invalid\\s+-\\s+1\\s+0\\s+-\\s+0\\s+${at(300)}\\s+1 node\\(s\\) failed`,
      ),
    );
    expect(lines[2]).toMatch(
      new RegExp(
        `^1\\s+${rev1.metadata.name}\\s+Complete\\s+yes\\s+5\\s+0\\s+0\\s+5\\s+5\\s+${at(7200)}\\s+${at(6000)}$`,
      ),
    );
  });
});

describe('diff', () => {
  const storageR1 = layer2('storage', 101, {
    nodeSelector: { matchExpressions: [{ key: 'rack', operator: 'In', values: ['r1'] }] },
  });
  const backup = layer2('backup', 200, { nodeSelector: { matchLabels: { rack: 'r3' } } });
  const webJumbo = layer2('web', 100, { mtu: 9000 });

  it('a node selector that matches no node is a warning line (a typo in a label value?)', async () => {
    await createRevision(tc, 1, A, complete(5, 7200, 6000));
    await createRevision(
      tc,
      2,
      inputsOf([web, layer2('typo', 300, { nodeSelector: { matchLabels: { rack: 'r9' } } })]),
      {},
    );
    const r = await cli(tc, ['diff', '1', '2']);
    expect(r.out).toContain('0 of 5 nodes change.');
    expect(r.out).toContain('Warning: Layer2 typo: nodeSelector rack=r9 matches no node');
    const json = JSON.parse((await cli(tc, ['diff', '1', '2', '-o', 'json'])).out) as {
      selectsNoNode: string[];
    };
    expect(json.selectsNoNode).toEqual(['Layer2 typo: nodeSelector rack=r9 matches no node']);
  });

  it('between two revisions: per node, what the selector change and the new network do', async () => {
    await createRevision(tc, 1, B, complete(5, 7200, 6000));
    await createRevision(tc, 2, inputsOf([webJumbo, storageR1, backup]), {});
    const r = await cli(tc, ['diff', '1', '2']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('5 of 5 nodes change.');
    expect(r.out).toMatch(
      /node-1\n {2}\+ Layer2 {7}storage +added {2}\(nodeSelector changed from rack=r2 to rack in \(r1\): now selects this node\)\n {2}~ Layer2 {7}web +changed: mtu 1500 → 9000\n/,
    );
    expect(r.out).toMatch(
      /node-3\n {2}- Layer2 {7}storage +removed {2}\(nodeSelector changed from rack=r2 to rack in \(r1\): no longer selects this node\)\n/,
    );
    expect(r.out).toMatch(
      /node-5\n {2}\+ Layer2 {7}backup +added {2}\(new network; rack=r3 selects this node\)\n/,
    );
    const json = JSON.parse((await cli(tc, ['diff', '1', '2', '-o', 'json'])).out) as {
      nodes: { node: string; changes: { section: string; name: string; change: string }[] }[];
    };
    const byNode = Object.fromEntries(
      json.nodes.map((n) => [n.node, n.changes.map((c) => `${c.change} ${c.name}`)]),
    );
    expect(byNode).toEqual({
      'node-1': ['added storage', 'changed web'],
      'node-2': ['added storage', 'changed web'],
      'node-3': ['removed storage', 'changed web'],
      'node-4': ['removed storage', 'changed web'],
      'node-5': ['added backup', 'changed web'],
    });
  });

  it('without arguments: the revision in force against the current inputs, before anything rolls out', async () => {
    await createRevision(tc, 1, B, complete(5, 7200, 6000));
    await tc.clients.layer2.create(web);
    await tc.clients.layer2.create(storage);
    let r = await cli(tc, ['diff']);
    expect(r.out).toContain('0 of 5 nodes change.');
    expect(r.code).toBe(0);

    // Relabel the network: rack r2 loses it, rack r1 gets it; web and node-5 stay as they are.
    const current = await tc.clients.layer2.get('storage');
    await tc.clients.layer2.update({
      ...current,
      spec: { ...current.spec, nodeSelector: storageR1.spec.nodeSelector },
    });
    r = await cli(tc, ['diff']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /^From: rev-000001-\w+ \(\w{10}\)\nTo: {3}current inputs \(\w{10}\)\n4 of 5 nodes change\.\n/,
    );
    expect(r.out).toContain(
      'node-2\n  + Layer2       storage  added  (nodeSelector changed from rack=r2 to rack in (r1): now selects this node)',
    );
    expect(r.out).toContain(
      'node-4\n  - Layer2       storage  removed  (nodeSelector changed from rack=r2 to rack in (r1): no longer selects this node)',
    );
    expect(r.out).toContain('Unchanged: node-5');
  });

  it('-f: a preview of files laid over the current inputs, before they are applied', async () => {
    await createRevision(tc, 1, B, complete(5, 7200, 6000));
    await tc.clients.layer2.create(web);
    await tc.clients.layer2.create(storage);
    const dir = mkdtempSync(join(tmpdir(), 'nodenet-cli-diff-'));
    const file = join(dir, 'change.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: network.nodenet.io/v1alpha1',
        'kind: Layer2NetworkConfiguration',
        'metadata: {name: storage}',
        'spec: {id: 101, vni: 20101, mtu: 1500, nodeSelector: {matchLabels: {rack: r3}}}',
        '---',
        'apiVersion: network.nodenet.io/v1alpha1',
        'kind: RoutingTable',
        'metadata: {name: taas-5}',
        'spec: {tableId: 5}',
        '',
      ].join('\n'),
    );
    const r = await cli(tc, ['diff', '-f', file, '-o', 'json']);
    rmSync(dir, { recursive: true, force: true });
    expect(r.code).toBe(1);
    const d = JSON.parse(r.out) as {
      to: { label: string };
      nodes: { node: string; changes: { change: string; name: string; cause: string }[] }[];
    };
    expect(d.to.label).toBe(`current inputs + ${file}`);
    expect(
      Object.fromEntries(
        d.nodes.map((n) => [n.node, n.changes.map((c) => `${c.change} ${c.name}: ${c.cause}`)]),
      ),
    ).toEqual({
      'node-1': ['added taas-5: new RoutingTable'],
      'node-2': ['added taas-5: new RoutingTable'],
      'node-3': [
        'removed storage: nodeSelector changed from rack=r2 to rack=r3: no longer selects this node',
        'added taas-5: new RoutingTable',
      ],
      'node-4': [
        'removed storage: nodeSelector changed from rack=r2 to rack=r3: no longer selects this node',
        'added taas-5: new RoutingTable',
      ],
      'node-5': [
        'added storage: nodeSelector changed from rack=r2 to rack=r3: now selects this node',
        'added taas-5: new RoutingTable',
      ],
    });
    // Nothing was written: the cluster still has the old selector.
    expect((await tc.clients.layer2.get('storage')).spec.nodeSelector).toEqual({
      matchLabels: { rack: 'r2' },
    });
  });

  it('-f goes through a server-side dry run: schema defaults apply, schema errors name the field (exit 4)', async () => {
    await createRevision(tc, 1, B, complete(5, 7200, 6000));
    await tc.clients.layer2.create(web);
    await tc.clients.layer2.create(storage);
    // examples/vrf.yaml leaves export[].action to the schema default.
    let r = await cli(tc, [
      'diff',
      '-f',
      fileURLToPath(new URL('../../../examples/vrf.yaml', import.meta.url)),
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(1);
    expect(r.out).toContain('5 of 5 nodes change.');
    expect(r.out).toMatch(
      /node-1\n {2}\+ VRF {10}tenant-a +added {2}\(new VRFRouteConfiguration\)\n {2}\+ Layer2 {7}tenant-a-app +added {2}\(new network for every node\)\n/,
    );
    expect(await tc.clients.vrf.list()).toMatchObject({ items: [] });

    const dir = mkdtempSync(join(tmpdir(), 'nodenet-cli-diff-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'apiVersion: network.nodenet.io/v1alpha1\nkind: RoutingTable\nmetadata: {name: t0}\nspec: {tableId: 0}\n',
    );
    r = await cli(tc, ['diff', '-f', file]);
    rmSync(dir, { recursive: true, force: true });
    expect(r.code).toBe(4);
    expect(r.err).toMatch(new RegExp(`^error: -f ${file}: RoutingTable t0: .*spec\\.tableId`));
  });

  it('without arguments: a refused input is held back and named (exit 4); inputs equal to an invalid revision say how to retry', async () => {
    await createRevision(tc, 1, A, complete(5, 7200, 6000));
    const bad = await createRevision(tc, 2, B, { isInvalid: true });
    await tc.clients.layer2.create(web);
    await tc.clients.layer2.create(storage);
    let r = await cli(tc, ['diff']);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      `The current inputs equal invalid revision ${bad.metadata.name}: they are not rolled out until you run kubectl nodenet retry ${bad.metadata.name}.`,
    );

    // The refused input (web, in force, keeps id 100) holds back only itself: the preview is the
    // build without it.
    await tc.clients.layer2.create(layer2('clash', 100));
    r = await cli(tc, ['diff']);
    expect(r.code).toBe(4);
    expect(r.out).toContain(`The current inputs equal invalid revision ${bad.metadata.name}`);
    expect(r.out).toMatch(
      /\nHeld back \(1; [^\n]*\n {2}Layer2NetworkConfiguration\/clash: refused: Layer2NetworkConfiguration clash: spec\.id: /,
    );
  });
});

describe('rollout controls', () => {
  it('pause and resume of a revision write spec.paused and say what follows; repeating is harmless', async () => {
    const { rev2 } = await rollingOut();
    let r = await cli(tc, ['pause', '2']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      `${rev2.metadata.name} paused: no new node starts; nodes already handed it finish (3 nodes carry it). ` +
        `A rollback away from an invalid revision is never held. Continue with: kubectl nodenet resume ${rev2.metadata.name}\n`,
    );
    expect((await tc.clients.revision.get(rev2.metadata.name)).spec.paused).toBe(true);
    r = await cli(tc, ['pause', '2']);
    expect(r.out).toBe(`${rev2.metadata.name} is already paused\n`);
    expect((await cli(tc, ['status', '-o', 'json'])).out).toContain('"phase": "Paused"');

    r = await cli(tc, ['resume', rev2.metadata.name, '-o', 'json']);
    expect(JSON.parse(r.out)).toMatchObject({
      revision: rev2.metadata.name,
      action: 'resume',
      changed: true,
    });
    expect((await tc.clients.revision.get(rev2.metadata.name)).spec.paused).toBe(false);
  });

  it('pause and resume without a revision act on the fleet: RolloutPolicy default, created when missing', async () => {
    await rollingOut();
    let r = await cli(tc, ['pause']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^fleet paused \(RolloutPolicy\/default spec\.paused=true\)/);
    expect((await tc.clients.rolloutPolicy.get('default')).spec.paused).toBe(true);
    r = await cli(tc, ['pause']);
    expect(r.out).toBe('the fleet is already paused (RolloutPolicy/default)\n');
    r = await cli(tc, ['resume', '-o', 'json']);
    expect(JSON.parse(r.out)).toMatchObject({
      revision: 'RolloutPolicy/default',
      action: 'resume',
      changed: true,
    });
    expect((await tc.clients.rolloutPolicy.get('default')).spec.paused).toBe(false);
  });

  it('pause of an invalid revision is refused (exit 6): nothing rolls forward', async () => {
    const { rev2 } = await halted();
    const r = await cli(tc, ['pause', rev2.metadata.name]);
    expect(r.code).toBe(6);
    expect(r.err).toMatch(/is invalid: nothing rolls forward/);
  });

  it('abort asks first, then writes spec.aborted and names the rollback target', async () => {
    const { rev1, rev2 } = await rollingOut();
    let r = await cli(tc, ['abort']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('Not a terminal: pass --yes to confirm');
    r = await cli(tc, ['abort'], { confirm: async () => false });
    expect(r.code).toBe(6);
    expect((await tc.clients.revision.get(rev2.metadata.name)).spec).not.toHaveProperty('aborted');

    let asked = '';
    r = await cli(tc, ['abort'], {
      confirm: async (q) => {
        asked = q;
        return true;
      },
    });
    expect(asked).toBe(`abort ${rev2.metadata.name}? [y/N] `);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`rolls the 3 nodes that took it back to ${rev1.metadata.name}.`);
    expect((await tc.clients.revision.get(rev2.metadata.name)).spec).toMatchObject({ aborted: true });
    r = await cli(tc, ['abort', '1', '--yes']);
    expect(r.code).toBe(6);
    expect(r.err).toContain(`superseded by ${rev2.metadata.name}`);
  });

  it('retry of a configuration the inputs no longer produce is refused (exit 6), as the configurator would', async () => {
    const { rev2 } = await halted();
    await tc.clients.layer2.create(web); // the inputs produce A (revision 1), not B
    const r = await cli(tc, ['retry', rev2.metadata.name, '--yes']);
    expect(r.code).toBe(6);
    expect(r.err).toMatch(
      /the current inputs no longer produce rev-000002-\w+'s configuration \(they produce \w{10}\)/,
    );
    expect(
      (await tc.clients.revision.get(rev2.metadata.name)).metadata.annotations?.['network.nodenet.io/retry'],
    ).toBeUndefined();
  });

  it('abort of a complete revision is refused (exit 6): it would roll back every node at once', async () => {
    const rev1 = await createRevision(tc, 1, A, complete(5, 7200, 6000));
    const r = await cli(tc, ['abort', '1', '--yes']);
    expect(r.code).toBe(6);
    expect(r.err).toContain(`${rev1.metadata.name} is complete: every node runs it`);
    expect((await tc.clients.revision.get(rev1.metadata.name)).spec).not.toHaveProperty('aborted');
  });

  it('retry annotates the newest invalid revision; a valid revision is refused', async () => {
    const { rev1, rev2 } = await halted();
    await tc.clients.layer2.create(web);
    await tc.clients.layer2.create(storage); // the inputs still produce B (revision 2)
    let r = await cli(tc, ['retry', rev1.metadata.name, '--yes']);
    expect(r.code).toBe(6);
    expect(r.err).toContain('is not invalid');
    r = await cli(tc, ['retry', '--yes']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      new RegExp(`^retry of ${rev2.metadata.name} requested: the configurator builds a new revision`),
    );
    const annotated = await tc.clients.revision.get(rev2.metadata.name);
    expect(annotated.metadata.annotations?.['network.nodenet.io/retry']).toBe(new Date(NOW).toISOString());
    expect((await cli(tc, ['history'])).out).toMatch(/Invalid \(retry requested\)/);
    r = await cli(tc, ['retry', '--yes']);
    expect(r.code).toBe(6);
    expect(r.err).toContain(`a retry of ${rev2.metadata.name} was already requested`);
  });
});

/**
 * A retry history: revision 2 (B) failed, its retry 3 has the same content and rolls out; node-1 and
 * node-2 took 3, node-3 is applying it, node-4 and node-5 wait on 1.
 */
async function retryHistory(): Promise<{ rev2: NetworkConfigRevision; rev3: NetworkConfigRevision }> {
  // As the configurator counts it once superseded: the 3 nodes still on it now, the 5 that ran it.
  const rev1 = await createRevision(tc, 1, A, { ...complete(5, 7200, 6000), total: 3, ready: 3, ranOn: 5 });
  const rev2 = await createRevision(tc, 2, B, {
    total: 0,
    failed: 1,
    isInvalid: true,
    failedNodes: [{ node: 'node-1', message: 'health check failed: tcp/peer', at: at(900) }],
    startedAt: at(1200),
    conditions: [
      {
        type: 'Invalid',
        status: 'True',
        reason: 'NodesFailed',
        message: '1 node(s) failed, more than --max-failures=0: node-1: health check failed: tcp/peer',
        lastTransitionTime: at(900),
      },
    ],
  });
  const rev3 = await createRevision(
    tc,
    3,
    B,
    { total: 5, ready: 2, ongoing: 1, queued: 2, failed: 0, startedAt: at(300) },
    { retryOf: rev2.metadata.name },
  );
  expect(rev3.spec.hash).toBe(rev2.spec.hash);
  await handedOut(rev1, rev3);
  // The configurator labels each row with the number on the host once the agent has reported: the
  // hash alone cannot tell 2 from 3.
  for (const [node, applied] of Object.entries({
    'node-1': 3,
    'node-2': 3,
    'node-3': 1,
    'node-4': 1,
    'node-5': 1,
  }))
    await tc.clients.nodeConfig.mergePatch(node, {
      metadata: { labels: { [APPLIED_NUMBER_LABEL]: String(applied) } },
    });
  return { rev2, rev3 };
}

describe('golden: what an operator reads (issue 27, items 1, 5, 6, 7)', () => {
  it('a retry history: nodes name the retry (3), never the failed revision with the same content (2); history links them (golden)', async () => {
    await retryHistory();
    let r = await cli(tc, ['nodes']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/nodes-retry-history.txt');
    expect(r.code).toBe(0);
    r = await cli(tc, ['history']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/history-retry.txt');
    expect(r.code).toBe(0);
  });

  it('retry of a revision that was retried already is refused with the reason, exit 6 (exact)', async () => {
    await retryHistory();
    await tc.clients.layer2.create(web);
    await tc.clients.layer2.create(storage);
    const r = await cli(tc, ['retry', '2', '--yes']);
    expect(r.code).toBe(6);
    expect(r.out).toBe('');
    // Revisions 2 and 3 have the same content: both names end in <hash 2>.
    expect(await golden(r.err)).toBe(
      'error: rev-000002-<hash 2> was already retried as rev-000003-<hash 2> (number 3); ' +
        'follow it with: kubectl nodenet status 3\n',
    );
  });

  it('a halted revision: nodes says which node was rolled back, from which revision (golden)', async () => {
    await halted();
    const r = await cli(tc, ['nodes']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/nodes-halted.txt');
    expect(r.code).toBe(0);
  });

  it('an input whose selector matches no node: status names it above the progress (exit 4), diff warns (golden)', async () => {
    const typo = layer2('typo', 300, { nodeSelector: { matchLabels: { rack: 'r9' } } });
    const rev1 = await createRevision(tc, 1, A, complete(5, 7200, 6000));
    for (const n of Object.keys(NODES)) await createNodeConfig(tc, n, rev1, ok(rev1, 6100), 6200);
    await tc.clients.layer2.create(web);
    await tc.clients.layer2.create(typo);
    await setInputCondition(tc, 'typo', {
      type: 'Selected',
      status: 'False',
      reason: 'NoNodeMatches',
      message: 'nodeSelector rack=r9 matches none of the 5 node(s)',
    });
    let r = await cli(tc, ['status']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/status-selects-no-node.txt');
    expect(r.code).toBe(4);
    r = await cli(tc, ['diff']);
    const to = (JSON.parse((await cli(tc, ['diff', '-o', 'json'])).out) as { to: { hash: string } }).to.hash;
    await expect((await golden(r.out)).replaceAll(to.slice(0, 10), '<hash built>')).toMatchFileSnapshot(
      'golden/diff-selects-no-node.txt',
    );
    expect(r.code).toBe(4);
  });

  it('diff between two revisions: each changed field old → new, per node (golden); exit 1', async () => {
    await createRevision(tc, 1, B, complete(5, 7200, 6000));
    await createRevision(
      tc,
      2,
      inputsOf([
        layer2('web', 100, { mtu: 9000 }),
        layer2('storage', 101, { mtu: 1600, nodeSelector: storage.spec.nodeSelector }),
      ]),
      {},
    );
    const r = await cli(tc, ['diff', '1', '2']);
    await expect(await golden(r.out)).toMatchFileSnapshot('golden/diff-values.txt');
    expect(r.code).toBe(1);
  });
});

describe('usage and errors', () => {
  it.each(['status', 'nodes', 'history', 'diff', 'pause', 'resume', 'abort', 'retry'])(
    '%s --help describes the verb and exits 0',
    async (verb) => {
      const r = await cli(tc, [verb, '--help']);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(new RegExp(`^Usage: kubectl nodenet ${verb} \\[options\\]`));
    },
  );

  // Issue 38: a missing $KUBECONFIG printed the raw ENOENT of the client library.
  it('a missing kubeconfig (from $KUBECONFIG or none at all) is one clear line, exit 2', async () => {
    const saved = { KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME };
    const attempt = async (): Promise<{ code: number; err: string }> => {
      let err = '';
      const code = await run(['status'], {
        stdout: { write: () => true },
        stderr: { write: (t: string) => (err += t) },
      });
      return { code, err };
    };
    try {
      process.env.KUBECONFIG = '/nonexistent/kubeconfig';
      expect(await attempt()).toEqual({
        code: 2,
        err: 'error: kubeconfig /nonexistent/kubeconfig (from $KUBECONFIG): file not found; give --kubeconfig or set $KUBECONFIG to an existing file\n',
      });
      delete process.env.KUBECONFIG;
      process.env.HOME = '/nonexistent-home';
      const none = await attempt();
      expect(none.code).toBe(2);
      expect(none.err).toMatch(/^error: no kubeconfig: give --kubeconfig, or set \$KUBECONFIG .*\n$/);
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });

  it('bad usage exits 2, an unreachable API server 5', async () => {
    expect((await cli(tc, ['status', '--bogus'])).code).toBe(2);
    expect((await cli(tc, ['nodes', '-o', 'wide-json'])).code).toBe(2);
    expect((await cli(tc, ['frobnicate'])).code).toBe(2);
    // A kubeconfig that names a port nothing listens on.
    const dir = mkdtempSync(join(tmpdir(), 'nodenet-cli-'));
    writeFileSync(join(dir, 'kubeconfig'), kubeconfigYaml('http://127.0.0.1:1'));
    let err = '';
    const code = await run(['nodes', '--kubeconfig', join(dir, 'kubeconfig')], {
      stdout: { write: () => true },
      stderr: { write: (s: string) => (err += s) },
    });
    rmSync(dir, { recursive: true, force: true });
    expect(code).toBe(5);
    expect(err).toMatch(/^error: GET \/\S+: .*ECONNREFUSED/);
  });
});

describe('an API server whose CRD predates spec.aborted', () => {
  it('abort fails with exit 6 and says to update the CRDs, instead of a write that does nothing', async () => {
    await tc.stop();
    tc = await startTestCluster({ without: 'aborted' });
    await createNodes(tc, NODES);
    await rollingOut();
    const r = await cli(tc, ['abort', '--yes']);
    expect(r.code).toBe(6);
    expect(r.err).toContain('older than this plugin: kubectl apply -f crds/');
  });
});
