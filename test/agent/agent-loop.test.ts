/**
 * The agent's Kubernetes side against a real devcluster over HTTP with the real @nodenet/kube client:
 * the watch by exact name, status writes with retries across an API outage, drift repair at resync
 * without status writes, start-up taint removal, the liveness Lease and the writes a change costs
 * (issue 40). The host boundary (netlink + FRR drivers) is the
 * in-memory stand-in, because this suite is about the API side; the real drivers are covered by the
 * host suites.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  API_VERSION,
  ASSIGNED_AT_ANNOTATION,
  REVISION_NUMBER_LABEL,
  type NodeConfig,
  type NodeConfigSpec,
} from '@nodenet/api';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { Informer, KubeClient, loadKubeConfig, makeClients, type Clients, type Lease } from '@nodenet/kube';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AgentLease,
  AgentLoop,
  nodeConfigStatusWriter,
  removeStartupTaints,
  CheckpointStore,
  AgentMetrics,
  Pipeline,
  StatusReporter,
} from '@nodenet/agent';
import { FakeHealth, FakeHost } from '../../packages/agent/test/fake-host.js';
import { sampleSpec } from '../../packages/agent/test/fixtures.js';
import { waitFor } from '@nodenet/testkit';

const CRDS = join(process.cwd(), 'crds');
const log = pino({ level: 'silent' });

let work: string;
let dc: DevCluster;
let client: KubeClient;
let clients: Clients;
let host: FakeHost;
let statusWriteFailures: number;
const loops: AgentLoop[] = [];
const reporters: StatusReporter[] = [];

function nodeConfig(name: string, spec: NodeConfigSpec, assignedAt = '2025-01-01T00:00:00Z'): NodeConfig {
  return {
    apiVersion: API_VERSION,
    kind: 'NodeConfig',
    metadata: { name, annotations: { [ASSIGNED_AT_ANNOTATION]: assignedAt } },
    spec,
  };
}

function startAgent(
  nodeName: string,
  extra: { startupTaints?: string[]; heartbeatMs?: number; confirmWindowMs?: number } = {},
): AgentLoop {
  const metrics = new AgentMetrics();
  const status = new StatusReporter({
    write: nodeConfigStatusWriter(clients, nodeName),
    backoff: { initialMs: 20, maxMs: 100, factor: 2 },
    onWriteError: () => void statusWriteFailures++,
    // As run-agent.ts wires it: heartbeats renew the node's Lease (in `default` here).
    liveness: new AgentLease({ clients, nodeName, namespace: 'default', durationSeconds: 1 }),
  });
  reporters.push(status);
  const pipeline = new Pipeline({
    drivers: host,
    checkpoints: new CheckpointStore(join(work, `state-${nodeName}`)),
    health: new FakeHealth(host),
    status,
    metrics,
    logger: log,
    onFirstHealthy: () => removeStartupTaints(clients, nodeName, extra.startupTaints ?? [], log),
    confirm: {
      windowMs: extra.confirmWindowMs ?? 0,
      intervalMs: extra.confirmWindowMs ? 100 : 1000,
      unreachableLimitMs: extra.confirmWindowMs ? extra.confirmWindowMs / 2 : 10_000,
    },
    heartbeatMs: extra.heartbeatMs ?? 0,
  });
  const loop = new AgentLoop({ nodeName, clients, pipeline, status, metrics, logger: log, resyncMs: 150 });
  loops.push(loop);
  void loop.start();
  return loop;
}

const statusOf = async (name: string) => (await clients.nodeConfig.get(name)).status;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'nodenet-agentloop-'));
  dc = await startDevCluster({ crdsDir: CRDS, dataDir: join(work, 'data') });
  client = new KubeClient(loadKubeConfig(dc.kubeconfigPath));
  clients = makeClients(client);
  host = new FakeHost();
  statusWriteFailures = 0;
});

afterEach(async () => {
  for (const loop of loops.splice(0)) {
    loop.stop();
    await loop.idle();
  }
  for (const r of reporters.splice(0)) r.stop();
  client.close();
  await dc.stop();
  await rm(work, { recursive: true, force: true });
});

describe('agent loop against devcluster', () => {
  it('re-reports provisioned after `kubectl delete nc` and re-creation with the same spec', async () => {
    const A = sampleSpec(1);
    await clients.nodeConfig.create(nodeConfig('node-1', A));
    startAgent('node-1');
    await waitFor('provisioned', async () => (await statusOf('node-1'))?.configStatus === 'provisioned');
    await reporters[0]!.flush();
    // Async: devcluster runs in this process, a blocking exec would stall it.
    await promisify(execFile)('kubectl', [
      '--kubeconfig',
      dc.kubeconfigPath,
      '--cache-dir',
      join(work, 'kubectl-cache'),
      'delete',
      'nodeconfig',
      'node-1',
    ]);
    // The configurator re-creates it with the same spec (and, here, the same assignment).
    await clients.nodeConfig.create(nodeConfig('node-1', A));
    const status = await waitFor('re-reported', async () => {
      const s = await statusOf('node-1');
      return s?.configStatus === 'provisioned' ? s : undefined;
    });
    expect(status.lastAppliedRevision).toBe(A.revision);
    expect(host.calls.filter((c) => c.startsWith('netlink.apply')).length).toBeGreaterThanOrEqual(1);
  });

  it('heartbeats during a slow apply: provisioning written once (at the first beat), then Lease renewals, no status rewrite', async () => {
    const A = sampleSpec(1);
    const created = await clients.nodeConfig.create(nodeConfig('node-1', A));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    host.beforeNetlinkApply = () => held; // e.g. an FRR command taking its full 60 s
    startAgent('node-1', { heartbeatMs: 100 });
    const first = await waitFor('provisioning', async () => {
      const s = await statusOf('node-1');
      return s?.configStatus === 'provisioning' ? s.lastUpdate : undefined;
    });
    const renewed = await waitFor('two renewals of the Lease', async () => {
      const lease = await clients.lease.get('node-1', 'default').catch(() => undefined);
      const rv = lease?.metadata.resourceVersion;
      const again = rv && (await clients.lease.get('node-1', 'default')).metadata.resourceVersion;
      return rv && again !== rv ? lease : undefined;
    });
    // Named after the node, labelled for the configurator's informer, owned by the NodeConfig.
    expect(renewed.metadata.labels).toEqual({ 'network.nodenet.io/agent-lease': 'true' });
    expect(renewed.metadata.ownerReferences).toEqual([
      { apiVersion: API_VERSION, kind: 'NodeConfig', name: 'node-1', uid: created.metadata.uid },
    ]);
    expect(renewed.spec?.holderIdentity).toBe('node-1');
    expect((await statusOf('node-1'))?.lastUpdate).toBe(first);
    release();
    await waitFor('provisioned', async () => (await statusOf('node-1'))?.configStatus === 'provisioned');
  });

  it('a change with a confirm window costs the agent 3 writes (provisioning, one renewal, provisioned), 4 with the spec write; idle, none', async () => {
    // The defaults' proportions: a 4m window, a renewal every 150s; here 1.5 s and 0.95 s.
    const A = sampleSpec(1);
    const B = sampleSpec(2);
    await clients.nodeConfig.create(nodeConfig('node-1', A));
    startAgent('node-1', { heartbeatMs: 950, confirmWindowMs: 1500 });
    await waitFor(
      'A provisioned',
      async () => (await statusOf('node-1'))?.lastAppliedRevision === A.revision,
    );
    const events: string[] = [];
    const ncs = new Informer(clients.nodeConfig, { fieldSelector: 'metadata.name=node-1' });
    const leases = new Informer<Lease>(clients.lease, { namespace: 'default' });
    ncs.on((e) => void (e.type === 'update' && events.push(`nc ${e.object.status?.configStatus}`)));
    leases.on((e) => void ((e.type === 'add' || e.type === 'update') && events.push('lease')));
    for (const i of [ncs, leases]) i.start();
    await Promise.all([ncs.waitForSync(), leases.waitForSync()]);
    try {
      await reporters[0]!.flush();
      await new Promise((r) => setTimeout(r, 300)); // whatever A's apply still had under way lands first
      events.length = 0;
      const nc = await clients.nodeConfig.get('node-1');
      await clients.nodeConfig.update({ ...nc, spec: B }); // the configurator's write
      await waitFor(
        'B provisioned',
        async () => (await statusOf('node-1'))?.lastAppliedRevision === B.revision,
      );
      await waitFor('the watch delivered it', () => events.includes('nc provisioned'));
      expect(events).toEqual([
        'nc provisioned', // the spec write (the old status stays)
        'nc provisioning', // Confirming: Applying was held and superseded
        'lease',
        'nc provisioned',
      ]);
      events.length = 0;
      await new Promise((r) => setTimeout(r, 2 * 950 + 500)); // two beats and several resyncs
      expect(events).toEqual([]);
    } finally {
      ncs.stop();
      leases.stop();
    }
  });

  it('applies its own NodeConfig, reports provisioned with the revision numbers, and ignores node-10 as node-1', async () => {
    const A = sampleSpec(1);
    const B = sampleSpec(2);
    await clients.nodeConfig.create(nodeConfig('node-10', B));
    const own = nodeConfig('node-1', A);
    await clients.nodeConfig.create({
      ...own,
      metadata: { ...own.metadata, labels: { [REVISION_NUMBER_LABEL]: '4' } },
    });
    const loop = startAgent('node-1');
    const status = await waitFor('node-1 provisioned', async () => {
      const s = await statusOf('node-1');
      return s?.configStatus === 'provisioned' ? s : undefined;
    });
    expect(status.lastAppliedRevision).toBe(A.revision);
    // Kept by the API server (the CRD names them), so `kubectl get nc` reads the row from status.
    expect(status).toMatchObject({ revisionNumber: 4, appliedRevisionNumber: 4 });
    expect(status.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Provisioned',
    });
    expect(host.netlinkState).toBe(A.revision);
    expect(loop.readyz().ok).toBe(true);

    // A change to node-10 never reaches node-1's agent.
    await clients.nodeConfig.mergePatch('node-10', { spec: { vrf: [] } });
    await new Promise((r) => setTimeout(r, 400)); // more than two resync periods
    expect(host.calls.some((c) => c.includes(B.revision.slice(0, 4)))).toBe(false);
    expect(await statusOf('node-10')).toBeUndefined();
  });

  it('repairs drift at the resync period without writing status', async () => {
    const A = sampleSpec(1);
    await clients.nodeConfig.create(nodeConfig('node-1', A));
    startAgent('node-1');
    await waitFor('provisioned', async () => (await statusOf('node-1'))?.configStatus === 'provisioned');
    await reporters[0]!.flush();
    const before = (await clients.nodeConfig.get('node-1')).metadata.resourceVersion;
    host.drifted = true; // a managed device deleted by hand
    await waitFor('drift repaired', () => !host.drifted);
    await new Promise((r) => setTimeout(r, 200));
    expect((await clients.nodeConfig.get('node-1')).metadata.resourceVersion).toBe(before);
  });

  it('API server stopped during an apply: the host keeps the healthy new config and status is written once it is back', async () => {
    const A = sampleSpec(1);
    const C = sampleSpec(3);
    await clients.nodeConfig.create(nodeConfig('node-1', A));
    startAgent('node-1');
    await waitFor(
      'A provisioned',
      async () => (await statusOf('node-1'))?.lastAppliedRevision === A.revision,
    );

    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let reached!: () => void;
    const atNetlink = new Promise<void>((r) => (reached = r));
    host.beforeNetlinkApply = async (spec) => {
      if (spec.revision !== C.revision) return;
      reached();
      await held;
    };
    await clients.nodeConfig.update({ ...(await clients.nodeConfig.get('node-1')), spec: C });
    await atNetlink;
    const port = dc.port;
    await dc.stop();
    release();
    await waitFor('status write failing while the API is down', () => statusWriteFailures > 0);
    expect(host.netlinkState).toBe(C.revision); // kept: health was fine, an unreachable API is no reason to roll back

    dc = await startDevCluster({ crdsDir: CRDS, dataDir: join(work, 'data'), port });
    const status = await waitFor(
      'status written after the API returned',
      async () => {
        const s = await statusOf('node-1');
        return s?.configStatus === 'provisioned' && s.lastAppliedRevision === C.revision ? s : undefined;
      },
      15_000,
    );
    expect(status.message).toMatch(/^revision [0-9a-f]{10} applied/);
    expect(host.netlinkState).toBe(C.revision);
  });

  it('removes only the configured start-up taints from its Node after the first success', async () => {
    await clients.node.create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1' },
      spec: {
        taints: [
          { key: 'node.nodenet.io/network-unavailable', effect: 'NoSchedule' },
          { key: 'other.example/keep', effect: 'NoExecute' },
        ],
      },
    });
    await clients.nodeConfig.create(nodeConfig('node-1', sampleSpec(1)));
    startAgent('node-1', { startupTaints: ['node.nodenet.io/network-unavailable'] });
    const node = await waitFor('taint removed', async () => {
      const n = await clients.node.get('node-1');
      return n.spec?.taints?.length === 1 ? n : undefined;
    });
    expect(node.spec?.taints).toEqual([{ key: 'other.example/keep', effect: 'NoExecute' }]);
  });
});
