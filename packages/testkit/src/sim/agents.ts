/**
 * Simulated agents and kubelets: what a node does with its NodeConfig on the virtual clock. Reports
 * are written as the real agent writes them (status answering the generation, failureCause on
 * `invalid`), so the planner reads them exactly as it reads a real agent's.
 */
import {
  ASSIGNED_AT_ANNOTATION,
  type NetworkConfigRevision,
  type NodeConfig,
  type NodeConfigStatus,
} from '@nodenet/api';
import { reportedStatus } from '../agent-status.js';
import { assignmentKey } from './planner-adapter.js';
import { TIMING, type AgentReport, type BadChange, type SimNode } from './types.js';

export interface AgentEnv {
  t: number;
  /** Wall clock of virtual time 0 (only written into statuses). */
  t0: number;
  nodeConfig(node: string): NodeConfig | undefined;
  writeStatus(node: string, nc: NodeConfig): void;
  revisionByHash(hash: string): NetworkConfigRevision | undefined;
  /** The bad change in this revision that harms this node, if any. */
  harm(node: string, revision: NetworkConfigRevision | undefined): BadChange | undefined;
  log(line: string): void;
  /** The agent finished applying (or refused) the revision with this hash. */
  evaluated(node: string, hash: string): void;
  /** The agent's confirm window and restore of a change that cut the node off (default TIMING.restore). */
  restoreMs?: number;
}

/** When the configurator wrote the node's current assignment (virtual ms). */
export const assignedAtOf = (nc: NodeConfig, t0: number): number =>
  Date.parse(nc.metadata.annotations?.[ASSIGNED_AT_ANNOTATION] ?? '') - t0 || 0;

function report(n: SimNode, env: AgentEnv, gen: number, r: AgentReport): void {
  const nc = env.nodeConfig(n.name);
  if (!nc) return;
  const at = new Date(env.t0 + env.t).toISOString();
  const misconfigured = n.agent === 'misconfigured';
  const ready = reportedStatus(r, at, gen);
  const status: NodeConfigStatus = misconfigured
    ? {
        ...ready,
        conditions: [
          ...(ready.conditions ?? []),
          {
            type: 'AgentReady',
            status: 'False' as const,
            reason: 'AgentMisconfigured',
            message: 'FRR template missing (simulated self-check)',
            lastTransitionTime: at,
            observedGeneration: gen,
          },
        ],
      }
    : ready;
  n.everReported = true;
  // A new object: the planner caches what it reads per object (informer objects are immutable).
  env.writeStatus(n.name, { ...nc, status });
  const extra = r.failureCause ? ` (${r.failureCause})` : '';
  env.log(`${n.name} reports ${r.configStatus ?? 'status'}${extra} on gen ${gen}`);
}

const running = (n: SimNode): boolean =>
  n.exists && n.cut === undefined && n.agent !== 'dead' && n.agent !== 'notStarted';

/** One step of the node's kubelet and agent at env.t. */
export function stepNode(n: SimNode, env: AgentEnv): void {
  stepFlap(n, env);
  if (n.cut) stepCut(n, env, n.cut);
  if (running(n)) stepAgent(n, env);
}

/** A flapping kubelet turns Ready and NotReady by turns until the flap ends. */
function stepFlap(n: SimNode, env: AgentEnv): void {
  const { t } = env;
  const flap = n.flap;
  if (!flap) return;
  // A change's flapping ends when the host no longer runs it (rolled back).
  const changeGone = flap.byChange !== undefined && n.host !== flap.byChange;
  if (!changeGone && t < flap.next) return;
  if (changeGone || t >= flap.until) {
    n.flap = undefined;
    if (flap.byChange === undefined) n.kubeletFault = false;
    if (!n.cut && !n.kubeletFault) n.kubeletReady = true;
  } else {
    n.kubeletReady = !n.kubeletReady;
    flap.next += !n.kubeletReady && flap.downMs !== undefined ? flap.downMs : flap.period;
  }
  env.log(`kubelet ${n.name} ${n.kubeletReady ? 'Ready' : 'NotReady'}${n.flap ? ' (flapping)' : ''}`);
}

/** A cut-off node goes NotReady after the grace period and comes back when the cut ends. */
function stepCut(n: SimNode, env: AgentEnv, cut: NonNullable<SimNode['cut']>): void {
  const { t } = env;
  if (t >= cut.notReadyAt && n.kubeletReady && t < cut.restoreAt) {
    n.kubeletReady = false;
    env.log(`kubelet ${n.name} NotReady (cut off)`);
  }
  if (t < cut.restoreAt) return;
  n.cut = undefined;
  // A fault lasts until it ends: a node cut off before it was handed a revision, and still cut off
  // after (its NotReady shows only after the grace period), is not a healthy node.
  if (!cut.byChange) n.lastFaultAt = t;
  if (!n.kubeletFault) n.kubeletReady = true;
  env.log(`${n.name} back on the network${cut.byChange ? ' (the agent restored the previous config)' : ''}`);
  if (!cut.byChange) return;
  if (cut.prevHost !== undefined) n.host = cut.prevHost;
  else delete n.host;
  report(n, env, cut.gen, {
    configStatus: 'invalid',
    failureCause: cut.cause ?? 'ChangeFailed',
    ...(n.host !== undefined ? { lastAppliedRevision: n.host } : {}),
    message:
      cut.cause === 'Interrupted'
        ? 'the API server still did not answer 15 s after the restore: an outage, not the change'
        : 'connectivity lost after the change; previous config restored',
  });
}

/** A running agent: answers a new assignment, reports progress, finishes its apply. */
function stepAgent(n: SimNode, env: AgentEnv): void {
  const nc = env.nodeConfig(n.name);
  if (n.agent === 'misconfigured') {
    if (nc && !nc.status?.conditions?.some((c) => c.type === 'AgentReady'))
      report(n, env, nc.metadata.generation ?? 1, {
        ...(nc.status?.configStatus ? { configStatus: nc.status.configStatus } : {}),
        ...(n.host !== undefined ? { lastAppliedRevision: n.host } : {}),
      });
    return;
  }
  if (!nc) {
    if (n.taint) {
      n.taint = false;
      env.log(`${n.name} agent up with no NodeConfig: start-up taint removed`);
    }
    return;
  }
  const key = assignmentKey(nc);
  if (n.job && n.job.key !== key) n.job = undefined; // re-assigned meanwhile: start on the new one
  if (!n.job && n.handledKey !== key) return startJob(n, env, nc);
  if (n.job) stepJob(n, env, n.job);
}

/** The agent takes its new assignment (after its reaction time) and reports `provisioning`. */
function startJob(n: SimNode, env: AgentEnv, nc: NodeConfig): void {
  const { t } = env;
  const key = assignmentKey(nc);
  // Reacts to the assignment when it sees it (a watch event): the assigned-at a configurator wrote
  // is another machine's clock, ahead of ours after its wall clock jumped back.
  if (n.seen?.key !== key) n.seen = { key, at: Math.min(t, assignedAtOf(nc, env.t0)) };
  if (t < n.seen.at + TIMING.react) return;
  const gen = nc.metadata.generation ?? 1;
  n.handledKey = key;
  const slow = n.agent === 'slow';
  n.job = {
    key,
    gen,
    hash: nc.spec.revision,
    doneAt: t + (slow ? TIMING.slowApply : TIMING.apply),
    heartbeatAt: t + TIMING.heartbeat,
  };
  report(n, env, gen, {
    configStatus: 'provisioning',
    ...(n.host !== undefined ? { lastAppliedRevision: n.host } : {}),
  });
}

/** An apply under way: Lease renewals (no status write) until it is done, then the outcome. */
function stepJob(n: SimNode, env: AgentEnv, job: NonNullable<SimNode['job']>): void {
  const { t } = env;
  if (t >= job.doneAt && n.agent === 'retrying' && !job.retried) {
    job.retried = true;
    job.doneAt = t + TIMING.retryBackoff + TIMING.apply;
    return report(n, env, job.gen, {
      configStatus: 'provisioning',
      ...(n.host !== undefined ? { lastAppliedRevision: n.host } : {}),
      message: 'apply failed (netlink busy), retrying',
    });
  }
  if (t >= job.doneAt) {
    n.job = undefined;
    return finish(n, env, job);
  }
  if (t < job.heartbeatAt) return;
  job.heartbeatAt = t + TIMING.heartbeat;
  n.renewals = (n.renewals ?? 0) + 1;
}

function finish(n: SimNode, env: AgentEnv, job: NonNullable<SimNode['job']>): void {
  env.evaluated(n.name, job.hash);
  const host = n.host !== undefined ? { lastAppliedRevision: n.host } : {};
  // The real agent reports Interrupted only when its own checks passed (the guarantee's
  // precondition 2, docs/rollout.md): a change that harms the node is caught as ChangeFailed first.
  const harmed = env.harm(n.name, env.revisionByHash(job.hash));
  if (n.agent === 'interrupts' && harmed)
    return report(n, env, job.gen, {
      configStatus: 'invalid',
      failureCause: 'ChangeFailed',
      ...host,
      message: `${harmed.input}=${harmed.value} refused by the node's checks before it was stopped`,
    });
  if (n.agent === 'interrupts')
    return report(n, env, job.gen, {
      configStatus: 'invalid',
      failureCause: 'Interrupted',
      ...host,
      message: 'agent stopped during the apply; previous config restored',
    });
  // Its restore is what is broken: a change its checks pass is applied as by a good agent.
  if (n.agent === 'restoreFails' && harmed) {
    delete n.host;
    return report(n, env, job.gen, {
      configStatus: 'invalid',
      failureCause: 'RestoreFailed',
      message: 'apply failed and the restore failed too',
    });
  }
  const harm = env.harm(n.name, env.revisionByHash(job.hash));
  if (harm?.effect === 'invalid')
    return report(n, env, job.gen, {
      configStatus: 'invalid',
      failureCause: 'ChangeFailed',
      ...host,
      message: `${harm.input}=${harm.value} refused by the node's checks`,
    });
  const prevHost = n.host;
  n.host = job.hash;
  n.taint = false;
  report(n, env, job.gen, { configStatus: 'provisioned', lastAppliedRevision: job.hash });
  if (harm?.effect === 'flap') {
    // NotReady shows after the node lifecycle controller's grace, inside the soak.
    n.flap = {
      until: Infinity,
      period: TIMING.flapUp,
      downMs: TIMING.flapDown,
      next: env.t + TIMING.notReadyGrace,
      byChange: job.hash,
    };
    n.lastFaultAt = env.t;
    env.log(`${n.name} FLAPPING by ${harm.input}=${harm.value}`);
  }
  if (harm && CUTS.has(harm.effect)) {
    const from = env.t + (harm.effect === 'cutOffLater' ? TIMING.later : 0);
    n.cut = {
      notReadyAt: from + TIMING.notReadyGrace,
      restoreAt: harm.effect === 'cutOffForever' ? Infinity : from + (env.restoreMs ?? TIMING.restore),
      ...(prevHost !== undefined ? { prevHost } : {}),
      gen: job.gen,
      byChange: true,
      ...(harm.effect === 'cutOffInterrupted' ? { cause: 'Interrupted' as const } : {}),
    };
    n.lastFaultAt = env.t;
    env.log(`${n.name} CUT OFF by ${harm.input}=${harm.value}`);
  }
}

const CUTS: ReadonlySet<BadChange['effect']> = new Set([
  'cutOff',
  'cutOffInterrupted',
  'cutOffLater',
  'cutOffForever',
]);

/** The next moment this node does something by itself (undefined: nothing pending). */
export function nextNodeWakeup(
  n: SimNode,
  nc: NodeConfig | undefined,
  t0: number,
  t: number,
): number | undefined {
  const times: number[] = [];
  if (n.flap) times.push(n.flap.next, n.flap.until);
  if (n.cut) times.push(n.cut.notReadyAt, n.cut.restoreAt);
  if (n.job) times.push(n.job.doneAt, n.job.heartbeatAt);
  if (nc && !n.job && n.handledKey !== assignmentKey(nc)) {
    const key = assignmentKey(nc);
    times.push((n.seen?.key === key ? n.seen.at : Math.min(t, assignedAtOf(nc, t0))) + TIMING.react);
  }
  const future = times.filter((x) => x > t);
  return future.length ? Math.min(...future) : undefined;
}
