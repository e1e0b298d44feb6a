/**
 * Plugin tests: a devcluster with the nodenet CRDs, objects written as the configurator and the
 * agents write them, and `run()` (what the binary runs) with captured output and a fixed clock.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  API_VERSION,
  ASSIGNED_AT_ANNOTATION,
  REVISION_NUMBER_LABEL,
  buildConfig,
  nodeConfigSpec,
  revisionName,
  type Inputs,
  type NetworkConfigRevision,
  type NodeConfigStatus,
} from '@nodenet/api';
import { run, type Io } from '@nodenet/cli';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';
import { parse, stringify } from 'yaml';
import { createNode } from '../../../test/fleet/harness.js';

export { layer2 } from '../../../test/fleet/harness.js';

export const CRDS_DIR = fileURLToPath(new URL('../../../crds/', import.meta.url));
/** The fixed "now" of golden outputs. */
export const NOW = Date.parse('2026-03-01T12:00:00Z');
export const at = (secondsAgo: number): string =>
  new Date(NOW - secondsAgo * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The repository's CRDs, with the rollout-control and rollout-safety fields the plugin reads
 * (`spec.aborted`, `status.degraded`, `status.degradedNodes`) added where the NetworkConfigRevision
 * schema does not have them yet (they come with the configurator's rollout-controls work); devcluster
 * would otherwise prune them as unknown fields. `without` removes a field instead, to test an older CRD.
 */
export function crdsDir(options: { without?: 'aborted' } = {}): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'nodenet-cli-crds-'));
  cpSync(CRDS_DIR, dir, { recursive: true });
  const file = join(dir, 'networkconfigrevisions.yaml');
  const crd = parse(readFileSync(file, 'utf8')) as {
    spec: {
      versions: {
        schema: { openAPIV3Schema: { properties: Record<string, { properties: Record<string, unknown> }> } };
      }[];
    };
  };
  for (const v of crd.spec.versions) {
    const props = v.schema.openAPIV3Schema.properties;
    const spec = props.spec!.properties;
    const status = props.status!.properties;
    spec.aborted ??= { type: 'boolean', description: 'test: rollout controls' };
    status.degraded ??= { type: 'integer', minimum: 0 };
    status.degradedNodes ??= status.failedNodes;
    if (options.without === 'aborted') delete spec.aborted;
  }
  writeFileSync(file, stringify(crd));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestCluster {
  dc: DevCluster;
  clients: Clients;
  stop(): Promise<void>;
}

export async function startTestCluster(options: { without?: 'aborted' } = {}): Promise<TestCluster> {
  const crds = crdsDir(options);
  const dc = await startDevCluster({ crdsDir: crds.dir });
  const client = new KubeClient(loadKubeConfig(dc.kubeconfigPath));
  return {
    dc,
    clients: makeClients(client),
    stop: async () => {
      client.close();
      await dc.stop();
      crds.cleanup();
    },
  };
}

/**
 * Golden text with each revision's short hash replaced by `<hash N>`: the files check that the right
 * revision's hash is in the right place, and stay valid when the canonical hashing of configs changes.
 */
export async function golden(tc: TestCluster, text: string): Promise<string> {
  let out = text;
  for (const r of (await tc.clients.revision.list()).items)
    out = out.replaceAll(r.spec.hash.slice(0, 10), `<hash ${r.spec.number}>`);
  return out;
}

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

export async function cli(tc: TestCluster, args: string[], io: Partial<Io> = {}): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await run([...args, '--kubeconfig', tc.dc.kubeconfigPath], {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    now: () => NOW,
    ...io,
  });
  return { code, out, err };
}

export const inputsOf = (layer2s: Inputs['layer2']): Inputs => ({
  vrf: [],
  layer2: layer2s,
  routingTable: [],
});

export async function createNodes(
  tc: TestCluster,
  nodes: Record<string, Record<string, string>>,
): Promise<void> {
  for (const [name, labels] of Object.entries(nodes)) await createNode(tc.clients, name, labels);
}

/** A revision as the configurator writes it, with the given status. */
export async function createRevision(
  tc: TestCluster,
  number: number,
  inputs: Inputs,
  status: NonNullable<NetworkConfigRevision['status']> & Record<string, unknown>,
  spec: Pick<NetworkConfigRevision['spec'], 'paused' | 'changedInputs' | 'retryOf'> = {},
): Promise<NetworkConfigRevision> {
  const { config, hash } = buildConfig(inputs);
  const created = await tc.clients.revision.create({
    apiVersion: API_VERSION,
    kind: 'NetworkConfigRevision',
    metadata: { name: revisionName(number, hash) },
    spec: { config, hash, number, ...spec },
  });
  return tc.clients.revision.patchStatus(created.metadata.name, { status });
}

/** A node's NodeConfig for a revision, as the configurator writes it, with the agent's status. */
export async function createNodeConfig(
  tc: TestCluster,
  node: string,
  rev: NetworkConfigRevision,
  agent:
    | {
        configStatus: NodeConfigStatus['configStatus'];
        onHost?: string;
        message: string;
        secondsAgo: number;
        reason?: string;
      }
    | undefined,
  assignedSecondsAgo = 600,
): Promise<void> {
  const labels = (await tc.clients.node.get(node)).metadata.labels ?? {};
  const spec = nodeConfigSpec({ config: rev.spec.config, hash: rev.spec.hash }, labels);
  const nc = await tc.clients.nodeConfig.create({
    apiVersion: API_VERSION,
    kind: 'NodeConfig',
    metadata: {
      name: node,
      labels: { [REVISION_NUMBER_LABEL]: String(rev.spec.number) },
      annotations: { [ASSIGNED_AT_ANNOTATION]: at(assignedSecondsAgo) },
    },
    spec,
  });
  if (!agent) return;
  const status: NodeConfigStatus = {
    configStatus: agent.configStatus,
    lastUpdate: at(agent.secondsAgo),
    message: agent.message,
    ...(agent.onHost ? { lastAppliedRevision: agent.onHost } : {}),
    conditions: ['Ready', 'Progressing', 'Invalid'].map((type) => ({
      type,
      status:
        (type === 'Ready' && agent.configStatus === 'provisioned') ||
        (type === 'Progressing' && agent.configStatus === 'provisioning') ||
        (type === 'Invalid' && agent.configStatus === 'invalid')
          ? ('True' as const)
          : ('False' as const),
      reason: agent.reason ?? 'Applied',
      message: agent.message,
      lastTransitionTime: at(agent.secondsAgo),
      observedGeneration: nc.metadata.generation ?? 1,
    })),
  };
  await tc.clients.nodeConfig.patchStatus(node, { status });
}

/** The kubelet's Ready condition as the node lifecycle controller writes it, changed `secondsAgo`. */
export async function setNodeReady(
  tc: TestCluster,
  node: string,
  ready: boolean,
  secondsAgo: number,
): Promise<void> {
  await tc.clients.node.patchStatus(node, {
    status: {
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'Unknown',
          reason: ready ? 'KubeletReady' : 'NodeStatusUnknown',
          message: ready ? 'kubelet is posting ready status' : 'Kubelet stopped posting node status.',
          lastHeartbeatTime: at(secondsAgo),
          lastTransitionTime: at(secondsAgo),
        },
      ],
    },
  });
}

/** One condition on a Layer-2 input's status, as the configurator writes it (30 s ago, generation 1). */
export async function setInputCondition(
  tc: TestCluster,
  name: string,
  condition: { type: string; status: 'True' | 'False'; reason: string; message: string },
): Promise<void> {
  await tc.clients.layer2.patchStatus(name, {
    status: { conditions: [{ ...condition, lastTransitionTime: at(30), observedGeneration: 1 }] },
  });
}
