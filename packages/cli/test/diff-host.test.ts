/**
 * `kubectl nodenet diff --host` (issue 39): per node, the agent's host plan and its disruption
 * class, nodes with the same plan grouped, the summary per class; the demo's bad change
 * (examples/bad-change.yaml) shown for what it is before it is applied (docs/operations.md quotes it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { API_VERSION, type Layer2NetworkConfiguration } from '@nodenet/api';
import { SECTIONS_TEMPLATE_TEXT } from '@nodenet/agent/host-plan';
import { DEPLOY_TEMPLATE } from '@nodenet/testkit';
import { parseAllDocuments } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cli,
  createNodes,
  createRevision,
  golden,
  inputsOf,
  startTestCluster,
  type TestCluster,
} from './support.js';

const example = (file: string): string => new URL(`../../../examples/${file}`, import.meta.url).pathname;
const goldenFile = new URL('./golden/diff-host-bad-change.txt', import.meta.url);
const update = process.env.UPDATE_GOLDEN === '1';

let tc: TestCluster;
beforeEach(async () => {
  tc = await startTestCluster();
  // The demo's nodes (examples/nodes.yaml) with the good change in force (examples/layer2-networks.yaml).
  await createNodes(tc, {
    'node-1': { rack: 'r1' },
    'node-2': { rack: 'r1' },
    'node-3': { rack: 'r2' },
    'node-4': { rack: 'r2' },
  });
  const good = parseAllDocuments(readFileSync(example('layer2-networks.yaml'), 'utf8')).map(
    (d) => d.toJS() as Layer2NetworkConfiguration,
  );
  for (const l2 of good) await tc.clients.layer2.create(l2);
  await createRevision(tc, 1, inputsOf(good), { phase: 'Complete' });
});
afterEach(async () => tc.stop());

describe('diff --host', () => {
  it("shows the demo's bad change for what it is: an anycast gateway on the address the nodes must reach", async () => {
    const r = await cli(tc, [
      'diff',
      '--host',
      '-f',
      example('bad-change.yaml'),
      '--protect',
      '10.98.0.2=the health-check target (the underlay peer)',
    ]);
    const text = (await golden(tc, r.out)).replace(example('bad-change.yaml'), 'examples/bad-change.yaml');
    if (update) writeFileSync(goldenFile, text);
    expect(text).toBe(readFileSync(goldenFile, 'utf8'));
    expect(r.code).toBe(4);
    expect(r.out).toContain('4 nodes: same plan as node-1  [none]');
    expect(r.out).toContain(
      '! l2.200 takes 10.98.0.2/24, the address of the health-check target (the underlay peer): this node answers for it itself and no longer reaches it',
    );
    expect(r.out).toMatch(
      /\n4 nodes: 4 none \(worst: none\); 4 take an address they must keep reaching \(!\): do not apply as it is\n$/,
    );
  });

  it('-o json: per group the nodes, the class, the netlink steps and the FRR lines; --node picks one node', async () => {
    const file = new URL('./vni.yaml', `file://${process.env.TMPDIR ?? '/tmp'}/`).pathname;
    writeFileSync(
      file,
      'apiVersion: network.nodenet.io/v1alpha1\nkind: Layer2NetworkConfiguration\nmetadata: {name: storage}\n' +
        "spec: {id: 101, vni: 20102, mtu: 1500, anycastMac: '02:00:00:00:01:01', anycastGateways: [10.101.0.1/24], nodeSelector: {matchLabels: {rack: r2}}}\n",
    );
    const r = await cli(tc, ['diff', '--host', '-f', file, '-o', 'json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.out);
    expect(out.disruption).toBe('l2-interruption');
    expect(out.counts).toMatchObject({ unchanged: 2, 'l2-interruption': 2 });
    expect(out.groups).toHaveLength(1);
    expect(out.groups[0].nodes).toEqual(['node-3', 'node-4']);
    expect(out.groups[0].netlink[0]).toEqual({
      action: 'delete',
      device: 'vx.20101',
      kind: 'vxlan',
      class: 'l2-interruption',
    });
    const one = await cli(tc, ['diff', '--host', '-f', file, '--node', 'node-4']);
    expect(one.out).toContain(
      'node-4  [l2-interruption]\n  netlink:\n    delete vxlan vx.20101  [l2-interruption]\n',
    );
    expect(one.out).toMatch(/\n1 node: 1 l2-interruption \(worst: l2-interruption\)\n$/);
    const none = await cli(tc, ['diff', '--host', '--node', 'node-9']);
    expect(none.code).toBe(2);
    expect(none.err).toContain('--node node-9: no such Node');
  });

  it('renders with the template each node gets (its AgentConfiguration, from the cluster); --frr-template overrides it', async () => {
    // Rack r1 takes the shipped template from an AgentConfiguration; revision 1 carried none.
    await tc.clients.agentConfiguration.create({
      apiVersion: API_VERSION,
      kind: 'AgentConfiguration',
      metadata: { name: 'rack-1' },
      spec: { frrTemplate: DEPLOY_TEMPLATE, nodeSelector: { matchLabels: { rack: 'r1' } } },
    });
    const r = await cli(tc, ['diff', '--host']);
    expect(r.out).toContain(
      "(FRR template: each node's AgentConfiguration, from the cluster; nodenet's sections only for the 2 node(s) none selects)",
    );
    // The template's own lines are what the agents of rack r1 add; rack r2 is unchanged.
    expect(r.out).toContain(
      '2 nodes: same plan as node-1  [session-reset]\n  also: node-2\n  frr (frr-reload.py):\n    + frr defaults datacenter  [session-reset]\n',
    );
    expect(r.out).toContain('\n4 nodes: 2 unchanged, 2 session-reset (worst: session-reset)\n');
    expect(r.out).not.toContain('node-3');
    const file = new URL('./sections.tpl', `file://${process.env.TMPDIR ?? '/tmp'}/`).pathname;
    writeFileSync(file, SECTIONS_TEMPLATE_TEXT);
    const overridden = await cli(tc, ['diff', '--host', '--frr-template', file]);
    expect(overridden.out).toContain(`(FRR template: ${file})`);
    expect(overridden.out).toContain('No node changes.');
    expect(overridden.code).toBe(0);
  });

  it('between two revisions: no change is exit 0 and says so', async () => {
    const { config, hash } = (await tc.clients.revision.list()).items[0]!.spec;
    await tc.clients.revision.create({
      apiVersion: API_VERSION,
      kind: 'NetworkConfigRevision',
      metadata: { name: `rev-000002-${hash.slice(0, 10)}x` },
      spec: { config, hash, number: 2 },
    });
    const r = await cli(tc, ['diff', '--host', '1', '2']);
    expect(r.out).toContain('No node changes.');
    expect(r.code).toBe(0);
  });

  it('status shows the revision disruption the configurator recorded', async () => {
    const [r1] = (await tc.clients.revision.list()).items;
    await tc.clients.revision.patchStatus(r1!.metadata.name, {
      status: { disruption: { worst: 'l2-interruption', nodes: { unchanged: 2, 'l2-interruption': 2 } } },
    });
    const r = await cli(tc, ['status']);
    expect(r.out).toContain(
      'Hosts:     l2-interruption at worst, against nothing: 4 nodes: 2 unchanged, 2 l2-interruption (kubectl nodenet diff --host for the plan)\n',
    );
  });

  it('status says why the update limit is lower: the Disruptive condition of RolloutPolicy spec.disruptive', async () => {
    const [r1] = (await tc.clients.revision.list()).items;
    const message =
      'disruption vrf-rebuild (RolloutPolicy default spec.disruptive.from=session-reset): update limit 1 instead of 4, waves are barriers';
    const condition = { type: 'Disruptive', status: 'True' as const, reason: 'DisruptiveChange', message };
    await tc.clients.revision.patchStatus(r1!.metadata.name, {
      status: { conditions: [{ ...condition, lastTransitionTime: '2026-11-27T00:00:00Z' }] },
    });
    expect((await cli(tc, ['status'])).out).toContain(
      `Why:       Disruptive (DisruptiveChange): ${message}\n`,
    );
  });
});
