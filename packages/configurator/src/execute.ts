/**
 * Carrying out a plan: one executor per action kind, against a small write interface (the real
 * clients, or a recording fake in tests). Order: invalidations first (status, then the Warning
 * Event: every reader sees why before anything moves), then assignments and row labels (at most
 * one write per NodeConfig) and collection, then revision statuses, then history cleanup. A failed invalidation write stops the pass: nodes are
 * never moved on a half-written invalidation.
 */
import {
  DESIRED_LABEL,
  HIGHEST_NUMBER_ANNOTATION,
  type Condition,
  type FailedNode,
  type NetworkConfigRevision,
  type NetworkConfigRevisionStatus,
  type NodeConfig,
  type NodeConfigSpec,
  shortHash,
  findCondition,
} from '@nodenet/api';
import { isNotFound, parallel, type KubeObject, type Node } from '@nodenet/kube';
import type { Logger } from 'pino';
import type { Metrics } from './run/metrics.js';
import { nodeConfigFor, specPatch, staleAnnotations } from './nodes/node-config.js';
import type { RowLabelGate } from './nodes/row-label-gate.js';
import { assignConcurrency } from './nodes/write-budget.js';
import { ASSIGNED_NAMES_LISTED, assignedMessage, type AssignedEvents } from './pace/assigned-events.js';
import type { StatusPace } from './pace/status-pace.js';
import {
  EMPTY_REVISION_NAME,
  emptyRevision,
  newTimeouts,
  rowLabelsOnMove,
  type Action,
  type AssignAction,
  type Plan,
  type StatusUpdate,
} from './rollout/index.js';

type Act<K extends Action['type']> = Extract<Action, { type: K }>;

/** The writes a pass makes. */
export interface Writer {
  nodeConfig: {
    create(obj: NodeConfig): Promise<NodeConfig>;
    mergePatch(name: string, patch: unknown): Promise<NodeConfig>;
    delete(name: string, namespace?: string, opts?: { uid?: string }): Promise<unknown>;
  };
  revision: {
    updateStatus(obj: NetworkConfigRevision): Promise<NetworkConfigRevision>;
    mergePatch(name: string, patch: unknown): Promise<NetworkConfigRevision>;
    delete(name: string, namespace?: string, opts?: { uid?: string }): Promise<unknown>;
  };
  events: {
    record(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
  };
}

/** What the executors read (the informer caches) and tell about their writes. */
export interface Cache {
  revision(name: string): NetworkConfigRevision | undefined;
  nodeConfig(name: string): NodeConfig | undefined;
  node(name: string): Node | undefined;
  wroteRevision(r: NetworkConfigRevision, deleted?: boolean): void;
  wroteNodeConfig(nc: NodeConfig, deleted?: boolean): void;
}

export interface ExecContext {
  writer: Writer;
  cache: Cache;
  log: Logger;
  metrics: Metrics;
  identity: string;
  isLeader: () => boolean;
  /** Wall clock of the pass (written into annotations for people). */
  now: number;
  specFor: (revision: NetworkConfigRevision, node: Node) => NodeConfigSpec;
  /** Writes in parallel per step. */
  concurrency: number;
  /** Informational writes (Events) the pass does not wait for. */
  background: (p: Promise<void>) => void;
  /**
   * Holds row-label writes until the row has settled (row-label-gate.ts), measured at `mono`; the
   * caller looks again when `nextDueInMs` says. Without it, every row-label write is made at once.
   */
  rowLabels?: { gate: RowLabelGate; mono: number };
  /**
   * Paces what only counts progress, measured at `mono`: a revision status whose only change is its
   * node counts (pace/status-pace.ts), and `NodesAssigned` Events gathered over passes
   * (pace/assigned-events.ts); the caller looks again when their `nextDueInMs` says. Without it,
   * every status is written and every pass records its Event at once.
   */
  pace?: { status: StatusPace; assigned: AssignedEvents; mono: number };
  /** Told how each assignment write ended (nodes/refused-assignments.ts): `err` when it failed. */
  assignWritten?: (node: string, err?: unknown) => void;
}

export async function invalidate(
  a: Act<'invalidate'>,
  status: NetworkConfigRevisionStatus | undefined,
  ctx: ExecContext,
): Promise<void> {
  const r = ctx.cache.revision(a.revision);
  if (!r) return;
  const written = await ctx.writer.revision.updateStatus({
    ...r,
    status: status ?? { ...r.status, isInvalid: true, failedNodes: a.failedNodes },
  });
  ctx.cache.wroteRevision(written);
  recordTimeouts(r.status, written.status, ctx);
  ctx.metrics.invalidations.inc();
  ctx.log.warn({ revision: a.revision, failedNodes: a.failedNodes, cause: a.reason }, 'revision invalidated');
  await ctx.writer.events.record(written, 'Warning', a.aborted ? 'Aborted' : 'RevisionInvalidated', a.reason);
}

export async function assign(a: AssignAction, ctx: ExecContext): Promise<boolean> {
  const node = ctx.cache.node(a.node);
  // The empty config (the fallback when no revision may be desired) is no stored object.
  const r = a.revision === EMPTY_REVISION_NAME ? emptyRevision() : ctx.cache.revision(a.revision);
  if (!r || !node) return false;
  const want = nodeConfigFor(r, node, {
    spec: ctx.specFor(r, node),
    move: a.move,
    ...(a.attempt !== undefined ? { attempt: a.attempt } : {}),
    ...(a.ranBefore !== undefined ? { ranBefore: a.ranBefore } : {}),
    now: ctx.now,
    identity: ctx.identity,
  });
  const existing = ctx.cache.nodeConfig(a.node);
  const written = existing
    ? // resourceVersion makes the patch conditional: a stale cache yields a 409, never a double assignment.
      await ctx.writer.nodeConfig.mergePatch(a.node, {
        metadata: {
          resourceVersion: existing.metadata.resourceVersion,
          ...pick(want.metadata),
          labels: { ...want.metadata.labels, ...rowLabelsOnMove(existing) },
          annotations: { ...want.metadata.annotations, ...staleAnnotations(existing, want) },
        },
        spec: specPatch(want.spec),
      })
    : await ctx.writer.nodeConfig.create(want);
  ctx.cache.wroteNodeConfig(written);
  ctx.log.info(
    {
      node: a.node,
      revision: a.revision,
      number: a.number,
      from: a.from === undefined ? undefined : shortHash(a.from),
      move: a.move,
      cause: a.reason,
    },
    a.rollback ? 'node rolled back' : 'node assigned',
  );
  return true;
}

const pick = (m: NodeConfig['metadata']) => ({
  annotations: m.annotations,
  labels: m.labels,
  ownerReferences: m.ownerReferences,
});

export async function collectNodeConfig(a: Act<'deleteNodeConfig'>, ctx: ExecContext): Promise<void> {
  const nc = ctx.cache.nodeConfig(a.name);
  if (!nc) return;
  try {
    await ctx.writer.nodeConfig.delete(a.name, undefined, nc.metadata.uid ? { uid: nc.metadata.uid } : {});
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  ctx.cache.wroteNodeConfig(nc, true);
  ctx.log.info({ nodeConfig: a.name, cause: a.reason }, 'NodeConfig collected');
  await ctx.writer.events.record(nc, 'Normal', 'NodeConfigCollected', a.reason);
}

/** Writes a revision status; Events for what changed in it (completion, newly degraded nodes). */
export async function writeStatus(u: StatusUpdate, ctx: ExecContext): Promise<void> {
  const r = ctx.cache.revision(u.revision);
  if (!r) return;
  const written = await ctx.writer.revision.updateStatus({ ...r, status: u.status });
  ctx.cache.wroteRevision(written);
  const old = r.status ?? {};
  const st = u.status;
  recordTimeouts(old, st, ctx);
  if (st.completedAt && !old.completedAt && st.startedAt) {
    const secs = (Date.parse(st.completedAt) - Date.parse(st.startedAt)) / 1000;
    ctx.metrics.rolloutDuration.observe(Math.max(0, secs));
    ctx.log.info(
      { revision: u.revision, seconds: secs, ready: st.ready, failed: st.failed },
      'rollout complete',
    );
    await ctx.writer.events.record(
      written,
      'Normal',
      'RolloutComplete',
      `${st.ready}/${st.total} nodes ready, ${st.failed ?? 0} failed`,
    );
  }
  for (const e of controlEvents(old.conditions, st.conditions))
    await ctx.writer.events.record(written, e.type, e.reason, e.message);
  const before = new Set((old.degradedNodes ?? []).map((d) => d.node));
  const fresh = (st.degradedNodes ?? []).filter((d) => !before.has(d.node));
  if (fresh.length > 0) {
    ctx.log.warn({ revision: u.revision, degradedNodes: fresh }, 'nodes degraded');
    await ctx.writer.events.record(written, 'Warning', 'NodesDegraded', degradedText(written, fresh));
  }
}

const degradedText = (r: NetworkConfigRevision, nodes: FailedNode[]): string =>
  `${nodes.length} node(s) failed on revision ${r.spec.number} (reported, not counted against it): ` +
  nodes
    .slice(0, 10)
    .map((d) => `${d.node}: ${d.message}`)
    .join('; ') +
  (nodes.length > 10 ? `; and ${nodes.length - 10} more` : '');

/**
 * Events for the controls a person used, from condition transitions: `Paused` / `Resumed`, and a
 * retry that cannot be honoured (`RetryRequested`, Warning). Abort and an honoured retry get theirs
 * where they happen (invalidate, revision creation).
 */
export function controlEvents(
  before: readonly Condition[] | undefined,
  after: readonly Condition[] | undefined,
): { type: 'Normal' | 'Warning'; reason: string; message: string }[] {
  const out: { type: 'Normal' | 'Warning'; reason: string; message: string }[] = [];
  const p0 = findCondition(before, 'Paused');
  const p1 = findCondition(after, 'Paused');
  if (p1 && p1.status !== (p0?.status ?? 'False'))
    out.push({ type: 'Normal', reason: p1.status === 'True' ? 'Paused' : 'Resumed', message: p1.message });
  const r0 = findCondition(before, 'RetryRequested');
  const r1 = findCondition(after, 'RetryRequested');
  if (r1 && r1.status === 'False' && (r0?.status !== 'False' || r0.reason !== r1.reason))
    out.push({ type: 'Warning', reason: 'RetryRequested', message: r1.message });
  return out;
}

export async function markHighestNumber(a: Act<'markHighestNumber'>, ctx: ExecContext): Promise<void> {
  if (!ctx.cache.revision(a.revision)) return;
  const written = await ctx.writer.revision.mergePatch(a.revision, {
    metadata: { annotations: { [HIGHEST_NUMBER_ANNOTATION]: String(a.number) } },
  });
  ctx.cache.wroteRevision(written);
}

/**
 * A timeout is the configurator's finding, not the agent's report: a Warning Event on the node's
 * NodeConfig says so (`kubectl describe nc <node>`), once per node and message.
 */
function recordTimeouts(
  before: NetworkConfigRevisionStatus | undefined,
  after: NetworkConfigRevisionStatus | undefined,
  ctx: ExecContext,
): void {
  const fresh = [
    ...newTimeouts(before?.failedNodes, after?.failedNodes),
    ...newTimeouts(before?.degradedNodes, after?.degradedNodes),
  ];
  for (const f of fresh) {
    const nc = ctx.cache.nodeConfig(f.node);
    if (nc) ctx.background(ctx.writer.events.record(nc, 'Warning', 'Timeout', f.message));
  }
}

export async function labelNodeConfig(a: Act<'labelNodeConfig'>, ctx: ExecContext): Promise<void> {
  if (!ctx.cache.nodeConfig(a.name)) return;
  const written = await ctx.writer.nodeConfig.mergePatch(a.name, { metadata: { labels: a.labels } });
  ctx.cache.wroteNodeConfig(written);
}

export async function labelDesired(a: Act<'labelDesired'>, ctx: ExecContext): Promise<void> {
  if (!ctx.cache.revision(a.revision)) return;
  const written = await ctx.writer.revision.mergePatch(a.revision, {
    metadata: { labels: { [DESIRED_LABEL]: a.desired ? 'true' : null } },
  });
  ctx.cache.wroteRevision(written);
}

export async function deleteRevision(a: Act<'deleteRevision'>, ctx: ExecContext): Promise<void> {
  const r = ctx.cache.revision(a.revision);
  if (!r) return;
  try {
    await ctx.writer.revision.delete(a.revision, undefined, r.metadata.uid ? { uid: r.metadata.uid } : {});
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  ctx.cache.wroteRevision(r, true);
  ctx.log.info({ revision: a.revision, cause: a.reason }, 'revision deleted');
}

/** Carries out a plan; returns the number of writes that failed (the pass is then retried). */
export async function executePlan(p: Plan, ctx: ExecContext): Promise<number> {
  let failures = 0;
  const guard = async (what: string, fn: () => Promise<void>): Promise<void> => {
    if (!ctx.isLeader()) return;
    try {
      await fn();
    } catch (err) {
      failures++;
      ctx.log.warn(
        { what, err: err instanceof Error ? err.message : String(err) },
        'write failed; will look again',
      );
    }
  };
  const of = <K extends Action['type']>(t: K): Act<K>[] => p.actions.filter((x): x is Act<K> => x.type === t);
  const statuses = new Map(p.statusUpdates.map((s) => [s.revision, s.status]));

  for (const a of of('invalidate')) {
    await guard(`invalidate ${a.revision}`, async () => {
      await invalidate(a, statuses.get(a.revision), ctx);
      statuses.delete(a.revision);
    });
  }
  if (failures > 0) return failures;

  const updates = [...statuses].map(([revision, status]) => ({ revision, status }));
  const pace = ctx.pace;
  const due = pace ? pace.status.due(updates, (n) => ctx.cache.revision(n)?.status, pace.mono) : updates;
  // A revision completing now has its gathered assignments told first, before RolloutComplete.
  const completing = due.filter(
    (u) => u.status.completedAt && !ctx.cache.revision(u.revision)?.status?.completedAt,
  );
  const done: AssignAction[] = [];
  const labels = ctx.rowLabels
    ? ctx.rowLabels.gate.due(of('labelNodeConfig'), ctx.rowLabels.mono)
    : of('labelNodeConfig');
  // One write per node: an assigned node's write carries its row labels, and the planner labels
  // only nodes it does not assign, so the two kinds share one round of parallel writes.
  const perNode: (AssignAction | Act<'labelNodeConfig'>)[] = [...of('assign'), ...labels];
  const assigned = of('assign').flatMap((a) => ctx.cache.revision(a.revision) ?? []);
  await parallel(perNode, assignConcurrency(assigned, ctx.concurrency), (a) =>
    a.type === 'assign'
      ? guard(`assign ${a.node}`, async () => {
          const wrote = await assign(a, ctx).catch((err: unknown) => {
            ctx.assignWritten?.(a.node, err);
            throw err;
          });
          if (!wrote) return;
          ctx.assignWritten?.(a.node);
          done.push(a);
        })
      : guard(`label NodeConfig ${a.name}`, () => labelNodeConfig(a, ctx)),
  );
  recordAssignments(done, ctx, new Set(completing.map((u) => u.revision)));
  await parallel(of('deleteNodeConfig'), ctx.concurrency, (a) =>
    guard(`delete NodeConfig ${a.name}`, () => collectNodeConfig(a, ctx)),
  );
  await parallel(due, ctx.concurrency, (u) => guard(`status ${u.revision}`, () => writeStatus(u, ctx)));
  await parallel(of('markHighestNumber'), ctx.concurrency, (a) =>
    guard(`mark ${a.revision}`, () => markHighestNumber(a, ctx)),
  );
  // The old desired revision loses its label before the new one gets it: never two at once.
  for (const a of of('labelDesired').sort((x, y) => Number(x.desired) - Number(y.desired)))
    await guard(`label ${a.revision}`, () => labelDesired(a, ctx));
  for (const a of of('deleteRevision'))
    await guard(`delete revision ${a.revision}`, () => deleteRevision(a, ctx));
  return failures;
}

/**
 * The Events of this pass's moves, recorded in the background: the log line and the NodeConfigs
 * carry the same facts, and waiting would delay the next wave by one more API round trip. With a
 * pace, `NodesAssigned` is gathered over passes (pace/assigned-events.ts); a rollback is told at once.
 */
function recordAssignments(
  done: readonly AssignAction[],
  ctx: ExecContext,
  completing: ReadonlySet<string>,
): void {
  const record = (r: NetworkConfigRevision, reason: string, message: string): void =>
    ctx.background(ctx.writer.events.record(r, 'Normal', reason, message));
  for (const group of groupBy([...done], (a) => `${a.revision}|${a.rollback}`)) {
    const first = group[0] as AssignAction;
    const r = ctx.cache.revision(first.revision);
    if (!r) continue;
    const names = group.map((a) => a.node).sort();
    if (ctx.pace && !first.rollback) {
      ctx.pace.assigned.add(first.revision, names);
      continue;
    }
    const digest = {
      revision: first.revision,
      count: names.length,
      names: names.slice(0, ASSIGNED_NAMES_LISTED),
      passes: 1,
    };
    const verb = first.rollback ? 'rolled back' : 'assigned';
    record(r, first.rollback ? 'RolledBack' : 'NodesAssigned', assignedMessage(digest, r.spec.number, verb));
  }
  for (const d of ctx.pace?.assigned.due(ctx.pace.mono, completing) ?? []) {
    const r = ctx.cache.revision(d.revision);
    if (r) record(r, 'NodesAssigned', assignedMessage(d, r.spec.number));
  }
}

function groupBy<T>(items: T[], key: (t: T) => string): T[][] {
  const m = new Map<string, T[]>();
  for (const it of items) m.set(key(it), [...(m.get(key(it)) ?? []), it]);
  return [...m.values()];
}
