/**
 * The API side of the agent's observations against a real devcluster over HTTP with the real
 * @nodenet/kube client, judged by kubectl: `status.observed` written next to (never over) the
 * status reports, shown by `kubectl get nc -o wide`, written only when it changed; the
 * `NodenetReady` Node condition following the node's state, next to the kubelet's conditions.
 *
 * FRR's answers are real FRR 8.4.4 output captured on this machine (packages/agent/test/golden/
 * frr-observed/), switched by the test to play a session going down and FRR stopping; the host is
 * the in-memory stand-in of agent-loop.test.ts. The real agent binary with real FRR is in
 * agent-bgp.test.ts.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  API_VERSION,
  ASSIGNED_AT_ANNOTATION,
  NODENET_READY_CONDITION,
  type NodeConfig,
  type NodeConfigSpec,
} from '@nodenet/api';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentLoop,
  AgentMetrics,
  buildObserved,
  CheckpointStore,
  NodeObservation,
  nodeConfigStatusWriter,
  Pipeline,
  StatusReporter,
  type ShowOutputs,
} from '@nodenet/agent';
import { FakeHealth, FakeHost } from '../../packages/agent/test/fake-host.js';
import { sampleSpec } from '../../packages/agent/test/fixtures.js';
import { waitFor } from '@nodenet/testkit';

const NODE = 'node-obs';
const log = pino({ level: 'silent' });
const golden = (name: string): string =>
  readFileSync(join(process.cwd(), 'packages/agent/test/golden/frr-observed', name), 'utf8');
const answers = (bgp: string): ShowOutputs => ({
  bgp: { ok: true, text: golden(bgp) },
  evpnVni: { ok: true, text: golden('evpn-node.evpn-vni.json') },
  vrfVni: { ok: true, text: golden('evpn-node.vrf-vni.json') },
  version: { ok: true, text: golden('evpn-node.version.txt') },
});
const FRR_UP = answers('evpn-node.bgp-summary.json');
const PEER_DOWN = answers('peer-down.bgp-summary.json');
const FRR_STOPPED: ShowOutputs = Object.fromEntries(
  Object.keys(FRR_UP).map((k) => [k, { ok: false, error: 'Exiting: failed to connect to any daemons.' }]),
) as ShowOutputs;

let work: string;
let dc: DevCluster;
let client: KubeClient;
let clients: Clients;
let host: FakeHost;
let loop: AgentLoop;
let status: StatusReporter;
let observation: NodeObservation;
let frr: ShowOutputs = FRR_UP;
const READ_AT = new Date();
let reads = 0;

/** kubectl, run asynchronously: devcluster serves it from this same process. */
const kubectl = async (...args: string[]): Promise<string> =>
  (
    await promisify(execFile)('kubectl', [
      '--kubeconfig',
      dc.kubeconfigPath,
      '--cache-dir',
      join(work, 'kubectl-cache'),
      ...args,
    ])
  ).stdout;

const nodenetReady = async (): Promise<string> =>
  kubectl(
    'get',
    'node',
    NODE,
    '-o',
    `jsonpath={.status.conditions[?(@.type=="${NODENET_READY_CONDITION}")].status} {.status.conditions[?(@.type=="${NODENET_READY_CONDITION}")].reason}`,
  );

/** The cell under `name` in kubectl's aligned table (cells may be empty or hold spaces). */
function columnCell(header: string, row: string, name: string): string | undefined {
  const start = header.search(new RegExp(`(^|\\s)${name}(\\s|$)`));
  if (start < 0) return undefined;
  const from = header[start] === ' ' ? start + 1 : start;
  const next = header.slice(from + name.length).search(/\S/);
  const to = next < 0 ? undefined : from + name.length + next;
  return row.slice(from, to).trim();
}

const nodeConfig = (spec: NodeConfigSpec, assignedAt: string): NodeConfig => ({
  apiVersion: API_VERSION,
  kind: 'NodeConfig',
  metadata: { name: NODE, annotations: { [ASSIGNED_AT_ANNOTATION]: assignedAt } },
  spec,
});

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'nodenet-observed-api-'));
  dc = await startDevCluster({ crdsDir: join(process.cwd(), 'crds') });
  client = new KubeClient(loadKubeConfig(dc.kubeconfigPath));
  clients = makeClients(client);
  host = new FakeHost();
  await clients.node.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
  // The kubelet's condition, which the agent's patch must leave alone.
  await clients.node.patchStatus(NODE, {
    status: {
      conditions: [
        { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
      ],
    },
  });
  await clients.nodeConfig.create(nodeConfig(sampleSpec(1), '2026-01-01T00:00:00Z'));

  const metrics = new AgentMetrics();
  status = new StatusReporter({ write: nodeConfigStatusWriter(clients, NODE) });
  observation = new NodeObservation({
    clients,
    nodeName: NODE,
    read: () => {
      reads++;
      // The golden answers' uptimes stand still where a real FRR's grow with the clock: the read
      // time stands still with them, so `since` (read time − uptime) is as steady as a real
      // session's however far apart the reads are (they slow down while nothing changes).
      return Promise.resolve(buildObserved(frr, READ_AT));
    },
    intervalMs: 1000,
    logger: log,
  });
  const pipeline = new Pipeline({
    drivers: host,
    checkpoints: new CheckpointStore(join(work, 'state')),
    health: new FakeHealth(host),
    status: observation.tap(status),
    metrics,
    logger: log,
    confirm: { windowMs: 0, intervalMs: 1000, unreachableLimitMs: 10_000 },
    heartbeatMs: 0,
  });
  loop = new AgentLoop({
    nodeName: NODE,
    clients,
    pipeline,
    status,
    metrics,
    logger: log,
    resyncMs: 300,
    onOutcome: (outcome, nc) => observation.outcome(outcome, nc),
  });
  observation.start();
  await loop.start();
});

afterAll(async () => {
  loop?.stop();
  await loop?.idle();
  await observation?.stop();
  status?.stop();
  client?.close();
  await dc?.stop();
  await rm(work, { recursive: true, force: true });
});

describe('observed state and NodenetReady (devcluster, kubectl)', () => {
  it('fills status.observed next to the provisioned report', async () => {
    const s = await waitFor('provisioned with observed state', async () => {
      const st = (await clients.nodeConfig.get(NODE)).status;
      return st?.configStatus === 'provisioned' && st.observed?.bgpSummary === '1/3' ? st : undefined;
    });
    expect(s.observed).toMatchObject({ frrVersion: '8.4.4', vniSummary: '1 L2, 1 L3' });
    expect(s.observed?.bgpSessions?.[0]).toMatchObject({
      vrf: 'default',
      peer: '10.99.0.2',
      state: 'Established',
    });
    expect(s.observed?.vnis).toEqual([
      { vni: 100, type: 'L2', vrf: 'default', vxlanInterface: 'vx100' },
      { vni: 2000, type: 'L3', vrf: 'vr.blue', state: 'Down' },
    ]);
    expect(s.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('shows BGP, VNIs and FRR version in kubectl get nc -o wide only', async () => {
    const wide = (await kubectl('get', 'nc', NODE, '-o', 'wide')).trimEnd().split('\n');
    const cell = (name: string): string | undefined => columnCell(wide[0]!, wide[1]!, name);
    expect(cell('BGP')).toBe('1/3');
    expect(cell('VNIS')).toBe('1 L2, 1 L3');
    expect(cell('FRR')).toBe('8.4.4');
    const narrow = (await kubectl('get', 'nc', NODE)).split('\n')[0]!;
    expect(narrow).not.toMatch(/\bBGP\b/);
  });

  it('sets NodenetReady=True on the Node and keeps the kubelet condition', async () => {
    await waitFor('NodenetReady True', async () => (await nodenetReady()) === 'True Applied');
    const types = await kubectl('get', 'node', NODE, '-o', 'jsonpath={.status.conditions[*].type}');
    expect(types.split(' ').sort()).toEqual([NODENET_READY_CONDITION, 'Ready']);
  });

  it('writes neither the observed state nor the condition while nothing changes', async () => {
    const before = await Promise.all([clients.node.get(NODE), clients.nodeConfig.get(NODE)]);
    // Several FRR reads and resyncs later (read period 1 s, resync 0.3 s)…
    const from = reads;
    await waitFor('4 more FRR reads', () => Promise.resolve(reads >= from + 4), 30_000);
    const after = await Promise.all([clients.node.get(NODE), clients.nodeConfig.get(NODE)]);
    expect(after.map((o) => o.metadata.resourceVersion)).toEqual(
      before.map((o) => o.metadata.resourceVersion),
    );
  });

  it('reports a session that went down, with when it left Established', async () => {
    frr = PEER_DOWN;
    const o = await waitFor('0/3 established', async () => {
      const obs = (await clients.nodeConfig.get(NODE)).status?.observed;
      return obs?.bgpSummary === '0/3' ? obs : undefined;
    });
    expect(o.bgpSessions?.find((x) => x.peer === '10.99.0.2')).toMatchObject({ state: 'Active' });
    expect(o.bgpSessions?.find((x) => x.peer === '10.99.0.2')?.since).toMatch(/Z$/);
    const wide = await kubectl('get', 'nc', NODE, '-o', 'wide');
    expect(wide).toContain('0/3');
  });

  it('turns NodenetReady False (Unhealthy) while FRR does not answer, and back', async () => {
    frr = FRR_STOPPED;
    await waitFor('NodenetReady Unhealthy', async () => (await nodenetReady()) === 'False Unhealthy');
    const obs = await waitFor('observed error', async () => {
      const o = (await clients.nodeConfig.get(NODE)).status?.observed;
      return o?.error ? o : undefined;
    });
    expect(obs.error).toContain('failed to connect to any daemons');
    expect(obs.frrVersion).toBeUndefined();
    frr = FRR_UP;
    await waitFor('NodenetReady True again', async () => (await nodenetReady()) === 'True Applied');
    // A merge patch with null removed the error once FRR answered again.
    const back = await waitFor('observed without error', async () => {
      const o = (await clients.nodeConfig.get(NODE)).status?.observed;
      return o?.frrVersion && o.error === undefined ? o : undefined;
    });
    expect(back.bgpSummary).toBe('1/3');
  });

  it('turns NodenetReady False (Restored) when a new revision fails and is rolled back', async () => {
    const bad = sampleSpec(2);
    host.failFrr.add(bad.revision);
    // A merge patch, as the configurator writes specs: no conflict with the agent's status writes.
    await clients.nodeConfig.mergePatch(NODE, {
      metadata: { annotations: { [ASSIGNED_AT_ANNOTATION]: '2026-01-02T00:00:00Z' } },
      spec: bad,
    });
    await waitFor('NodenetReady Restored', async () => (await nodenetReady()) === 'False Restored');
    const message = await kubectl(
      'get',
      'node',
      NODE,
      '-o',
      `jsonpath={.status.conditions[?(@.type=="${NODENET_READY_CONDITION}")].message}`,
    );
    expect(message).toContain('restored revision');
    // The invalid report did not remove the observed state (each writer patches its own fields).
    const st = (await clients.nodeConfig.get(NODE)).status;
    expect(st?.configStatus).toBe('invalid');
    expect(st?.observed?.frrVersion).toBe('8.4.4');
  });
});
