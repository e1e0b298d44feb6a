/**
 * `kubectl nodenet diff` previews with the configurator's held-back rule (@nodenet/api
 * `inputsToBuild`): a refused input and the change that broke an invalid revision are left out and
 * listed with the reason, an unrelated valid change is shown; the TO side is exactly what the
 * configurator's build makes of the same state.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findCondition, type NetworkConfigRevision } from '@nodenet/api';
import { buildRevision } from '@nodenet/configurator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  at,
  cli,
  createNodes,
  createRevision,
  golden,
  inputsOf,
  layer2,
  setInputCondition,
  startTestCluster,
  type TestCluster,
} from './support.js';

const web = layer2('web', 100);
const storage = layer2('storage', 101, { nodeSelector: { matchLabels: { rack: 'r2' } } });
const backup = layer2('backup', 200, { nodeSelector: { matchLabels: { rack: 'r3' } } });
const clash = layer2('clash', 101);

let tc: TestCluster;
beforeEach(async () => {
  tc = await startTestCluster();
  await createNodes(tc, {
    'node-1': { rack: 'r1' },
    'node-2': { rack: 'r1' },
    'node-3': { rack: 'r2' },
    'node-4': { rack: 'r2' },
    'node-5': { rack: 'r3' },
  });
});
afterEach(async () => tc.stop());

/**
 * Revision 1 (web, storage) in force; web's MTU change (generation 2) broke revision 2; then a new
 * `clash` (refused: id 101 is storage's) and a new, valid `backup` on rack r3.
 */
async function heldBackState(): Promise<{ rev1: NetworkConfigRevision; rev2: NetworkConfigRevision }> {
  const rev1 = await createRevision(tc, 1, inputsOf([web, storage]), {
    total: 5,
    ready: 5,
    completedAt: '2026-01-01T00:00:00Z',
  });
  await tc.clients.layer2.create(web);
  await tc.clients.layer2.create(storage);
  const current = await tc.clients.layer2.get('web');
  const jumbo = await tc.clients.layer2.update({ ...current, spec: { ...current.spec, mtu: 9000 } });
  expect(jumbo.metadata.generation).toBe(2);
  const rev2 = await createRevision(
    tc,
    2,
    inputsOf([jumbo, storage]),
    {
      isInvalid: true,
      failed: 1,
      conditions: [
        {
          type: 'Invalid',
          status: 'True',
          reason: 'NodesFailed',
          message: '1 node(s) failed, more than --max-failures=0: node-1: MTU 9000 needs an underlay of 9050',
          lastTransitionTime: at(60),
        },
      ],
    },
    { changedInputs: ['Layer2NetworkConfiguration/web@2'] },
  );
  await tc.clients.layer2.create(clash);
  await setInputCondition(tc, 'clash', {
    type: 'Accepted',
    status: 'False',
    reason: 'Invalid',
    message: 'refused as the configurator writes it',
  });
  await tc.clients.layer2.create(backup);
  return { rev1, rev2 };
}

/** What the configurator's build makes of the cluster's inputs and revisions now. */
async function configuratorBuilds(): Promise<string | undefined> {
  const [vrf, l2, rt, revisions] = await Promise.all([
    tc.clients.vrf.list(),
    tc.clients.layer2.list(),
    tc.clients.routingTable.list(),
    tc.clients.revision.list(),
  ]);
  const built = buildRevision(
    { vrf: vrf.items, layer2: l2.items, routingTable: rt.items },
    revisions.items,
    Date.now(),
  );
  return built.decision.action === 'create' ? built.decision.revision.spec.hash : undefined;
}

describe('diff with inputs held back', () => {
  it('previews what the configurator builds and lists the refused input and the suspect with the reason (golden); exit 4', async () => {
    await heldBackState();
    const json = JSON.parse((await cli(tc, ['diff', '-o', 'json'])).out) as {
      to: { hash: string };
      heldBack: { input: string; reason: string }[];
    };
    expect(json.to.hash).toBe(await configuratorBuilds());
    const r = await cli(tc, ['diff']);
    expect(r.err).toBe('');
    const text = (await golden(tc, r.out)).replaceAll(json.to.hash.slice(0, 10), '<hash built>');
    await expect(text).toMatchFileSnapshot('golden/diff-held-back.txt');
    expect(r.code).toBe(4);
    expect(json.heldBack.map((h) => `${h.input} ${h.reason}`)).toEqual([
      'Layer2NetworkConfiguration/clash refused',
      'Layer2NetworkConfiguration/web suspect',
    ]);
  });

  it('-f with a new generation of the suspect releases it: the preview shows its change, clash stays held back', async () => {
    await heldBackState();
    const dir = mkdtempSync(join(tmpdir(), 'nodenet-cli-held-'));
    const file = join(dir, 'web.yaml');
    writeFileSync(
      file,
      'apiVersion: network.nodenet.io/v1alpha1\nkind: Layer2NetworkConfiguration\nmetadata: {name: web}\nspec: {id: 100, vni: 10100, mtu: 1600}\n',
    );
    const r = await cli(tc, ['diff', '-f', file]);
    rmSync(dir, { recursive: true, force: true });
    expect(r.code).toBe(4);
    expect(r.out).toContain('5 of 5 nodes change.');
    expect(r.out).toMatch(/node-1\n {2}~ Layer2 {7}web +changed: mtu 1500 → 1600\n/);
    expect(r.out).toContain('Held back (1;');
    expect(r.out).toContain('  Layer2NetworkConfiguration/clash: refused: ');
    expect(r.out).not.toContain('Layer2NetworkConfiguration/web:');
  });

  it('retry of the invalid revision is accepted: once asked, the build releases its suspect and makes it again', async () => {
    const { rev2 } = await heldBackState();
    await tc.clients.layer2.delete('backup'); // the inputs (clash held back) produce rev2 again on retry
    const r = await cli(tc, ['retry', rev2.metadata.name, '--yes']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const annotated = await tc.clients.revision.get(rev2.metadata.name);
    expect(annotated.metadata.annotations?.['network.nodenet.io/retry']).toBeDefined();
    expect(await configuratorBuilds()).toBe(rev2.spec.hash);
  });

  it('retry refused (exit 6) when the inputs, with the refused one held back, no longer produce the revision', async () => {
    const { rev2 } = await heldBackState(); // backup is new: rev2 + backup, not rev2
    const r = await cli(tc, ['retry', rev2.metadata.name, '--yes']);
    expect(r.code).toBe(6);
    expect(r.err).toMatch(/the current inputs no longer produce rev-000002-\w+'s configuration/);
    expect(
      findCondition((await tc.clients.revision.get(rev2.metadata.name)).status?.conditions, 'Invalid'),
    ).toBeDefined();
    expect(
      (await tc.clients.revision.get(rev2.metadata.name)).metadata.annotations?.['network.nodenet.io/retry'],
    ).toBeUndefined();
  });
});
