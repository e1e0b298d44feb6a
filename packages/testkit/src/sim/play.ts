/** Playing a history to its end: faults stop, pauses lift, convergence is checked (invariant 4). */
import type { NodeConfig } from '@nodenet/api';
import type { IncrementalPlanner } from '@nodenet/configurator';
import { assignmentKey, contentOf, isInvalid, numberOf } from './planner-adapter.js';
import type { Sabotage } from './planner-pass.js';
import { TIMING, type Scheduled } from './types.js';
import type { History, RevisionSummary, RunResult } from './history.js';
import { World } from './world.js';

/** Faults stop: every agent works, kubelets are Ready, nothing is paused. */
export function heal(w: World): void {
  w.log('FAULTS STOP: agents good, kubelets Ready, pauses lifted');
  for (const n of w.nodes.values()) {
    if (n.agent !== 'good' && n.agent !== 'slow') {
      if (n.agent === 'misconfigured') delete n.handledKey;
      n.agent = 'good';
    }
    // A bad change's flapping is no fault: it lasts while the host runs the change.
    if (n.flap?.byChange === undefined) n.flap = undefined;
    n.kubeletFault = false;
    if (!n.cut && !n.flap) n.kubeletReady = true;
  }
  w.fleetPaused = false;
  for (const r of w.store.revisions.values())
    if (r.spec.paused) w.store.revisions.set(r.metadata.name, { ...r, spec: { ...r.spec, paused: false } });
}

/** Invariant 4: every available node is on the desired revision, applied and answered. */
export function convergenceProblems(w: World): string[] {
  const d = w.desired;
  if (!d) return [];
  const r = w.store.revisions.get(d.name);
  const selector = w.knobs.knobs.nodeSelector ?? {};
  const out: string[] = [];
  for (const n of w.nodes.values()) {
    if (!n.exists || w.unavailable(n.name) === 'NotReady' || n.cut) continue;
    if (Object.entries(selector).some(([k, v]) => n.labels[k] !== v)) continue;
    if (w.harms(n.name, r).length) continue;
    const nc: NodeConfig | undefined = w.store.nodeConfigs.get(n.name);
    const answered = nc !== undefined && n.handledKey === assignmentKey(nc) && !n.job;
    if (
      nc?.spec.revision === d.hash &&
      n.host === d.hash &&
      answered &&
      nc.status?.configStatus === 'provisioned'
    )
      continue;
    out.push(
      `${n.name} holds rev ${nc ? numberOf(nc) : 'none'} (${nc?.status?.configStatus ?? 'no status'}${nc?.status?.failureCause ? ` ${nc.status.failureCause}` : ''}), host ${n.host === d.hash ? 'on' : 'not on'} desired rev ${d.number}`,
    );
  }
  return out;
}

export function summary(w: World): RevisionSummary[] {
  return [...w.store.revisions.values()]
    .sort((a, b) => a.spec.number - b.spec.number)
    .map((r) => ({
      number: r.spec.number,
      content: contentOf(r),
      invalid: isInvalid(r),
      completed: r.status?.completedAt !== undefined,
      ...(r.status?.phase ? { phase: r.status.phase } : {}),
      failed: r.status?.failed ?? 0,
      degraded: r.status?.degraded ?? 0,
    }));
}

/** Plays a history: revision 1 completes, the actions play, faults stop, convergence is checked. */
export function play(
  history: History,
  opts: { stopAtFirst?: boolean; sabotage?: Sabotage; incremental?: IncrementalPlanner } = {},
): RunResult {
  const w = new World(history, opts.stopAtFirst ?? true, opts.sabotage, opts.incremental);
  const stop = (): boolean => w.stopAtFirst && w.ledger.violations.length > 0;
  w.settingUp = true;
  w.advance(60_000, []);
  w.settingUp = false;
  const r1 = w.revisionByNumber(1);
  if (!r1?.status?.completedAt && !stop())
    throw new Error(
      `${history.name}: revision 1 did not complete in the set-up:\n${w.timeline.slice(-30).join('\n')}`,
    );
  const start = w.t;
  w.log('--- history starts (revision 1 complete) ---');
  const queue = [...history.actions].map((a) => ({ ...a, at: a.at + start })).sort((a, b) => a.at - b.at);
  const last = queue.length ? (queue[queue.length - 1] as Scheduled).at : start;
  const p = w.policy;
  w.advance(last + TIMING.restore + 1_000, queue);
  if (!stop()) {
    heal(w);
    const settle =
      history.settleMs ??
      3 * (p.preconfigTimeoutMs + p.configTimeoutMs + p.notReadyTimeoutMs + p.minSuccessTimeMs) +
        2 * TIMING.restore;
    w.advance(w.t + settle, []);
    if (history.converge !== false && !stop()) w.ledger.convergence(convergenceProblems(w), w.t);
  }
  return {
    violations: w.ledger.violations,
    timeline: w.timeline,
    reach: w.ledger.reach,
    revisions: summary(w),
    bound: w.knobs.maxLimit + w.knobs.maxFailures,
    passes: w.passes,
  };
}
