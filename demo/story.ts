/**
 * The demo's story, each step checked: a good change rolls out under the update limit; a bad change
 * fails on the first node, the revision is marked invalid, the rollout halts, and that node is rolled
 * back while the others never see the bad revision.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { shortHash, type Inputs, type NetworkConfigRevision, type NodeConfig } from '@nodenet/api';
import type { Clients } from '@nodenet/kube';
import { run as runPlugin } from '@nodenet/cli';
import { parseAllDocuments } from 'yaml';
import { applyFile, NodeConfigWatch } from './resources.js';
import type { Stage } from './stage.js';

export interface StoryFiles {
  nodes: string;
  good: string;
  bad: string;
}

export interface StepResult {
  name: string;
  ok: boolean;
  detail?: string;
}

/** The input objects of YAML files, as the configurator will read them (for the expected hashes). */
export function inputsFromFiles(files: string[]): Inputs {
  const inputs: Inputs = { vrf: [], layer2: [], routingTable: [] };
  for (const file of files)
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const obj = doc.toJS() as { kind?: string } | null;
      if (obj?.kind === 'Layer2NetworkConfiguration') inputs.layer2.push(obj as Inputs['layer2'][number]);
      else if (obj?.kind === 'VRFRouteConfiguration') inputs.vrf.push(obj as Inputs['vrf'][number]);
      else if (obj?.kind === 'RoutingTable') inputs.routingTable.push(obj as Inputs['routingTable'][number]);
    }
  return inputs;
}

export interface StoryOptions {
  stage: Stage;
  files: StoryFiles;
  nodes: string[];
  updateLimit: number;
  goodHash: string;
  badHash: string;
  timeoutMs: number;
  log: (line: string) => void;
}

export interface StoryResult {
  steps: StepResult[];
  /** Names of the good and the bad revision, once known (for the commands shown afterwards). */
  good?: string;
  bad?: string;
}

/** What each step of the story works with. */
interface Scene {
  o: StoryOptions;
  watch: NodeConfigWatch;
  clients: StoryOptions['stage']['clients'];
  until: <T>(what: string, fn: () => Promise<T | undefined | false>) => Promise<T>;
  first: string;
  others: string[];
}

export async function playStory(o: StoryOptions, watch: NodeConfigWatch): Promise<StoryResult> {
  const clients = o.stage.clients;
  const results: StepResult[] = [];
  const step = stepper(o.log, results);
  const [first, ...others] = o.nodes;
  const scene: Scene = {
    o,
    watch,
    clients,
    until: (what, fn) => waitUntil(what, fn, o.timeoutMs, () => describeState(clients)),
    first: first!,
    others,
  };

  let goodName: string | undefined;
  await step(
    `good change (${relative(process.cwd(), o.files.good)}): its revision reaches all ${o.nodes.length} nodes, at most ${o.updateLimit} in progress at a time`,
    async () => {
      const rev = await goodChange(scene);
      goodName = rev.metadata.name;
      return `${rev.metadata.name} complete; at most ${watch.maxInProgress} node(s) in progress at once`;
    },
  );
  if (!goodName) return { steps: results };
  await step('each node got the networks its labels select (storage only on rack r2)', () =>
    networksFollowLabels(scene),
  );
  let badName = '';
  const halted = await step(
    `bad change (${relative(process.cwd(), o.files.bad)}): its revision fails on ${first}, is marked invalid and the rollout halts`,
    async () => {
      const rev = await badChange(scene);
      badName = rev.metadata.name;
      return `${rev.metadata.name} invalid: ${rev.status?.failedNodes?.[0]?.message ?? ''}`;
    },
  );
  if (!halted) return { steps: results, good: goodName };
  await step(`${first} is rolled back to the good revision`, () => rolledBack(scene));
  await step(`${others.join(', ')} never received the bad revision and still run the good one`, () =>
    othersUntouched(scene),
  );
  await step('kubectl nodenet status reports the halt and what happens next', () =>
    statusReportsHalt(scene, badName),
  );
  return { steps: results, good: goodName, bad: badName };
}

/** Runs a step, logs and records whether it happened (and what it found). */
function stepper(log: StoryOptions['log'], results: StepResult[]) {
  return async (name: string, body: () => Promise<string | void>): Promise<boolean> => {
    log(`▶ ${name}`);
    try {
      const detail = (await body()) ?? undefined;
      results.push({ name, ok: true, ...(detail ? { detail } : {}) });
      log(`  ✔ ${detail ?? 'done'}`);
      return true;
    } catch (err) {
      results.push({ name, ok: false, detail: (err as Error).message });
      log(`  ✘ did not happen: ${(err as Error).message}`);
      return false;
    }
  };
}

/** The good change reaches every node, never more than the update limit in progress at once. */
async function goodChange({ o, watch, clients, until }: Scene): Promise<NetworkConfigRevision> {
  watch.resetMax();
  await applyFile(clients, o.files.good);
  const rev = await until('the good revision complete on every node', async () => {
    const r = await revisionWithHash(clients, o.goodHash);
    const ncs = (await clients.nodeConfig.list()).items;
    const done = ncs.length === o.nodes.length && ncs.every((nc) => provisionedOn(nc, o.goodHash));
    const complete = r?.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True');
    return done && complete ? r : undefined;
  });
  if (watch.maxInProgress > o.updateLimit)
    throw new Error(
      `${watch.maxInProgress} nodes were in progress at once, above the limit ${o.updateLimit}`,
    );
  return rev;
}

async function networksFollowLabels({ clients }: Scene): Promise<void> {
  const ncs = (await clients.nodeConfig.list()).items;
  const nodes = new Map((await clients.node.list()).items.map((n) => [n.metadata.name, n]));
  for (const nc of ncs) {
    const names = nc.spec.layer2.map((l) => l.name).sort();
    const want = nodes.get(nc.metadata.name)?.metadata.labels?.rack === 'r2' ? ['storage', 'web'] : ['web'];
    if (names.join() !== want.join())
      throw new Error(`${nc.metadata.name} has ${names.join(', ')}, expected ${want.join(', ')}`);
  }
}

/** The bad change fails on the first node only and its revision is marked invalid. */
async function badChange({ o, clients, until, first }: Scene): Promise<NetworkConfigRevision> {
  await applyFile(clients, o.files.bad);
  const rev = await until('the bad revision invalid', async () => {
    const r = await revisionWithHash(clients, o.badHash);
    return r?.status?.isInvalid ? r : undefined;
  });
  const failed = (rev.status?.failedNodes ?? []).map((f) => f.node);
  if (failed.join() !== first)
    throw new Error(`failed nodes ${failed.join(', ') || 'none'}, expected ${first}`);
  return rev;
}

async function rolledBack({ o, clients, until, first }: Scene): Promise<string | void> {
  await until(`${first} provisioned on the good revision again`, async () =>
    provisionedOn(await clients.nodeConfig.get(first), o.goodHash),
  );
  const devices = o.stage.hostDevices(first);
  if (!devices) return;
  if (devices.includes('l2.200')) throw new Error(`${first}'s host still has l2.200`);
  if (!devices.includes('l2.100')) throw new Error(`${first}'s host lost l2.100`);
  return 'host checked: l2.100 present, l2.200 gone';
}

async function othersUntouched({ o, watch, clients, others }: Scene): Promise<void> {
  for (const node of others) {
    if (watch.handed.get(node)?.has(o.badHash)) throw new Error(`${node} was handed the bad revision`);
    const nc = await clients.nodeConfig.get(node);
    if (!provisionedOn(nc, o.goodHash)) throw new Error(`${node} is not provisioned on the good revision`);
  }
}

async function statusReportsHalt({ o }: Scene, badName: string): Promise<void> {
  let out = '';
  const code = await runPlugin(['status', badName, '--kubeconfig', o.stage.kubeconfigPath], {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (out += s) },
  });
  o.log('');
  for (const line of out.trimEnd().split('\n')) o.log(`    ${line}`);
  o.log('');
  if (code !== 4 || !out.includes('Halted')) throw new Error(`exit code ${code}, output:\n${out}`);
}

const provisionedOn = (nc: NodeConfig, hash: string): boolean =>
  nc.spec.revision === hash &&
  nc.status?.configStatus === 'provisioned' &&
  nc.status.lastAppliedRevision === hash;

async function revisionWithHash(clients: Clients, hash: string): Promise<NetworkConfigRevision | undefined> {
  return (await clients.revision.list()).items.find((r) => r.spec.hash === hash);
}

/** Waits on this process's monotonic clock; on timeout says what the cluster looked like. */
async function waitUntil<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs: number,
  describe: () => Promise<string>,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  while (performance.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `timed out after ${timeoutMs / 1000}s waiting for ${what}${lastError ? ` (last error: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)})` : ''}; ${await describe().catch(() => '')}`,
  );
}

async function describeState(clients: Clients): Promise<string> {
  const revs = (await clients.revision.list()).items.map(
    (r) =>
      `${r.metadata.name}{ready ${r.status?.ready ?? 0}/${r.status?.total ?? 0}${r.status?.isInvalid ? ', invalid' : ''}}`,
  );
  const ncs = (await clients.nodeConfig.list()).items.map(
    (nc) => `${nc.metadata.name}{${shortHash(nc.spec.revision)} ${nc.status?.configStatus ?? '-'}}`,
  );
  return `revisions: ${revs.join(' ') || 'none'}; node configs: ${ncs.join(' ') || 'none'}`;
}
