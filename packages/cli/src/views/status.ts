/**
 * `kubectl nodenet status`: the rollout of one revision at a glance (pure). Counts come from the
 * revision's status, which the configurator derives from every NodeConfig; node details come from
 * the NodeConfigs themselves.
 */
import { escapeControls, findCondition, labelOf, RETRY_ANNOTATION } from '@nodenet/api';
import type { FailedNode, RevisionDisruption } from '@nodenet/api';
import { countsText } from '@nodenet/agent/host-plan';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { age, plural, progressBar, table } from './format.js';
import { nodeRows, type NodeRow } from './nodes.js';
import { heldBack } from './held-back.js';
import { inputsHash } from './preview.js';
import { isInvalid, revisionInForce, type ClusterState, type Revision } from '../cluster/state.js';

export type Phase =
  | 'Complete'
  | 'RollingOut'
  | 'Paused'
  | 'Halted'
  | 'Superseded'
  /** The revision in force while nodes roll back to it from a newer invalid one. */
  | 'RollingBack'
  /** Every available node is on it; only unavailable (skipped) nodes are left (the configurator's reason). */
  | 'WaitingForUnavailable';

export interface StatusView {
  revision: { name: string; number: number; hash: string };
  phase: Phase;
  /** The revision nodes are moved to (newest valid), when it is another one. */
  inForce?: string;
  /** `ranOn`: the most nodes ready on it at once (status.ranOn), what a superseded revision shows. */
  counts: {
    total: number;
    ready: number;
    ongoing: number;
    queued: number;
    failed: number;
    degraded: number;
    ranOn: number;
  };
  /** Nodes the revision left unchanged (their host config): moved without a slot (issue 26). */
  unchanged?: number;
  /** Wave label values of the nodes in progress (with `--wave-label`). */
  wave?: { label: string; values: string[] };
  inProgress: { node: string; state: string; since?: string; message: string }[];
  failedNodes: FailedNode[];
  degradedNodes: FailedNode[];
  /** Why the rollout is paused, halted or degraded, from the revision's conditions. */
  reasons: string[];
  /**
   * What is held back or behind, fleet-wide: rejected inputs (with their first problem), inputs that
   * select no node, nodes unavailable and skipped, nodes whose restore failed. Empty when all is well.
   */
  attention: string[];
  /** While halted: nodes not yet back on the revision in force. */
  rollback?: { to: string; remaining: string[] };
  /** While this revision is the one nodes roll back to: from which invalid revision, and who is left. */
  restoring?: { from: string; remaining: string[] };
  /** Who holds a pause: the revision's own spec.paused and/or the fleet (RolloutPolicy default). */
  pausedBy: { revision: boolean; fleet: boolean };
  /** While only unavailable nodes are left: their names. */
  waitingFor?: string[];
  retryRequested?: string;
  /** What the revision does to the hosts (status.disruption, written by the configurator). */
  disruption?: RevisionDisruption;
  startedAt?: string;
  completedAt?: string;
  next: string;
}

/** `rows`: `nodeRows(s)`, when the caller has them already (the dashboard keeps them between pushes). */
export function statusView(
  s: ClusterState,
  rev: Revision,
  waveLabel?: string,
  rows: NodeRow[] = nodeRows(s),
): StatusView {
  const st = rev.status ?? {};
  const inForce = revisionInForce(s);
  const failedNodes = st.failedNodes ?? [];
  const degradedNodes = st.degradedNodes ?? [];
  const counts = countsOf(st);
  const unchanged = st.unchanged ?? 0;
  const { phase, restoring } = phaseAndRestoring(s, rev, inForce, rows);
  const inProgress = rows
    .filter((r) => r.revisionName === rev.metadata.name && BUSY.has(r.state))
    .map((r) => ({
      node: r.node,
      state: r.state,
      ...(r.since ? { since: r.since } : {}),
      message: r.message,
    }));
  const rollback = isInvalid(rev) && inForce ? rollbackOf(rev, inForce, rows) : undefined;
  const wave = waveLabel ? waveOf(s, inProgress, waveLabel) : undefined;
  const retryRequested = rev.metadata.annotations?.[RETRY_ANNOTATION];
  const view: StatusView = {
    revision: { name: rev.metadata.name, number: rev.spec.number, hash: rev.spec.hash },
    phase,
    ...(inForce && inForce.metadata.name !== rev.metadata.name ? { inForce: inForce.metadata.name } : {}),
    counts,
    ...(unchanged > 0 ? { unchanged } : {}),
    ...(st.disruption ? { disruption: st.disruption } : {}),
    ...(wave ? { wave } : {}),
    inProgress,
    failedNodes,
    degradedNodes,
    reasons: reasonsOf(rev, phase, s.fleetPaused),
    attention: attentionOf(s, rev, rows),
    ...(rollback ? { rollback } : {}),
    ...whileRestoringOrWaiting(phase, restoring, rows),
    pausedBy: { revision: rev.spec.paused === true, fleet: s.fleetPaused },
    ...(retryRequested !== undefined ? { retryRequested } : {}),
    ...(st.startedAt ? { startedAt: st.startedAt } : {}),
    ...(st.completedAt ? { completedAt: st.completedAt } : {}),
    next: '',
  };
  view.next = nextStep(view);
  return view;
}

/** The revision's node counts, as its status gives them. */
function countsOf(st: NonNullable<Revision['status']>): StatusView['counts'] {
  return {
    total: st.total ?? 0,
    ready: st.ready ?? 0,
    ongoing: st.ongoing ?? 0,
    queued: st.queued ?? 0,
    failed: st.failed ?? (st.failedNodes ?? []).length,
    degraded: st.degraded ?? (st.degradedNodes ?? []).length,
    ranOn: Math.max(st.ranOn ?? 0, st.ready ?? 0),
  };
}

/** Node states of a node still working on the revision. */
const BUSY = new Set<string>(['pending', 'provisioning', 'confirming']);

function phaseOf(s: ClusterState, rev: Revision, inForce: Revision | undefined): Phase {
  if (isInvalid(rev)) return 'Halted';
  if (inForce !== undefined && inForce.spec.number > rev.spec.number) return 'Superseded';
  const complete = findCondition(rev.status?.conditions, 'Complete');
  if (complete?.status === 'True') return 'Complete';
  if (complete?.reason === 'WaitingForUnavailableNodes') return 'WaitingForUnavailable';
  return rev.spec.paused || s.fleetPaused ? 'Paused' : 'RollingOut';
}

/** The phase, and while nodes roll back to this revision (it is in force), from where. */
function phaseAndRestoring(
  s: ClusterState,
  rev: Revision,
  inForce: Revision | undefined,
  rows: NodeRow[],
): { phase: Phase; restoring: StatusView['restoring'] } {
  const restoring = rev === inForce ? restoringOf(s, rev, rows) : undefined;
  return { phase: restoring ? 'RollingBack' : phaseOf(s, rev, inForce), restoring };
}

/** The view's parts for a revision nodes roll back to, or one that waits for unavailable nodes. */
function whileRestoringOrWaiting(
  phase: Phase,
  restoring: StatusView['restoring'],
  rows: NodeRow[],
): Pick<StatusView, 'restoring' | 'waitingFor'> {
  if (restoring) return { restoring };
  if (phase === 'WaitingForUnavailable')
    return { waitingFor: rows.filter((r) => r.placement === 'unavailable').map((r) => r.node) };
  return {};
}

/**
 * The revision in force while nodes still leave a newer invalid one for it: the rollback is what
 * moves, not a rollout of this revision (nothing to pause or abort here).
 */
function restoringOf(s: ClusterState, rev: Revision, rows: NodeRow[]): StatusView['restoring'] {
  let newestBad: Revision | undefined;
  for (const bad of s.revisions)
    if (isInvalid(bad) && bad.spec.number > rev.spec.number) {
      const { remaining } = rollbackOf(bad, rev, rows);
      if (remaining.length > 0) return { from: bad.metadata.name, remaining };
      if (!newestBad || bad.spec.number > newestBad.spec.number) newestBad = bad;
    }
  // Every node is back, but the configurator has not yet counted the revision complete again (its
  // status follows within a second): still the rollback's tail, not a rollout to pause or abort.
  const completeNow = findCondition(rev.status?.conditions, 'Complete')?.status === 'True';
  if (newestBad && rev.status?.completedAt !== undefined && !completeNow)
    return { from: newestBad.metadata.name, remaining: [] };
  return undefined;
}

/** Why the rollout is paused, halted or degraded, from the revision's conditions. */
function reasonsOf(rev: Revision, phase: Phase, fleetPaused: boolean): string[] {
  const reasons: string[] = [];
  for (const type of ['Invalid', 'Aborted', 'Paused', 'RetryRequested', 'Degraded', 'Disruptive']) {
    const c = findCondition(rev.status?.conditions, type);
    if (c?.status === 'True') reasons.push(`${type} (${c.reason}): ${escapeControls(c.message)}`);
  }
  if (phase === 'Paused' && !reasons.some((r) => r.startsWith('Paused')))
    reasons.push(
      fleetPaused
        ? 'Paused: the whole fleet is paused (RolloutPolicy default, spec.paused=true)'
        : 'Paused: spec.paused is true',
    );
  return reasons;
}

/** While an invalid revision is rolled back: the nodes not yet back on the revision in force. */
function rollbackOf(rev: Revision, inForce: Revision, rows: NodeRow[]): NonNullable<StatusView['rollback']> {
  const remaining = rows
    .filter(
      (r) =>
        r.revisionName === rev.metadata.name ||
        (r.revisionName === inForce.metadata.name &&
          r.state !== 'provisioned' &&
          r.onHost === rev.spec.number),
    )
    .map((r) => r.node);
  return { to: inForce.metadata.name, remaining };
}

function waveOf(
  s: ClusterState,
  inProgress: StatusView['inProgress'],
  waveLabel: string,
): NonNullable<StatusView['wave']> {
  const labels = new Map(s.nodes.map((n) => [n.metadata.name, n.metadata.labels ?? {}]));
  const values = [
    ...new Set(inProgress.map((p) => labelOf(labels.get(p.node) ?? {}, waveLabel) ?? '(unlabelled)')),
  ].sort();
  return { label: waveLabel, values };
}

function attentionOf(s: ClusterState, rev: Revision, rows: NodeRow[]): string[] {
  return [
    ...haltedNewer(s, rev, rows),
    ...heldBack(s.inputs),
    ...rows
      .filter((r) => BEHIND[r.placement] !== undefined)
      .map((r) => `node ${r.node} ${BEHIND[r.placement]}: ${r.why}`),
  ];
}

/** Node states that are listed above the progress, and how. */
const BEHIND: Partial<Record<NodeRow['placement'], string>> = {
  unavailable: 'skipped',
  'restore-failed': 'needs a person',
  'rolling-back': 'is being rolled back',
};

/**
 * Invalid revisions newer than the one shown that still matter: a node still carries one, or the
 * current inputs would produce it again (held back until fixed or retried). Once the bad inputs are
 * gone and every node is back, an old halt is history (`kubectl nodenet history`), not a status.
 */
function haltedNewer(s: ClusterState, shown: Revision, rows: NodeRow[]): string[] {
  // "Would produce": as the build sees the inputs once r is retried (its suspects released).
  return s.revisions
    .filter((r) => isInvalid(r) && r.spec.number > shown.spec.number)
    .filter((r) => rows.some((n) => n.revision === r.spec.number) || inputsHash(s, r) === r.spec.hash)
    .map((r) => {
      const why = findCondition(r.status?.conditions, 'Invalid')?.message ?? 'invalid';
      return `${r.metadata.name} is halted (${why.split('\n')[0]}); see kubectl nodenet status ${r.spec.number}`;
    });
}

function nextStep(v: StatusView): string {
  const name = v.revision.name;
  switch (v.phase) {
    case 'Halted': {
      const back = v.rollback
        ? v.rollback.remaining.length > 0
          ? `The nodes that took ${name} are being rolled back to ${v.rollback.to} (${plural(v.rollback.remaining.length, 'node')} left: ${v.rollback.remaining.join(', ')}).`
          : `Every node that took ${name} is back on ${v.rollback.to}.`
        : `No valid revision exists to roll back to.`;
      const again =
        v.retryRequested !== undefined
          ? `A retry was requested: the configurator builds a new revision with this configuration and a new number.`
          : `This configuration is not rolled out again by itself: fix the inputs (a new revision follows), or try it again with \`kubectl nodenet retry ${name}\`.`;
      return `${back} ${again}`;
    }
    case 'Superseded':
      return `Nodes are moved to ${v.inForce}: see \`kubectl nodenet status ${v.inForce}\`.`;
    case 'Complete':
      return v.counts.degraded > 0
        ? `Every node took ${name}; ${plural(v.counts.degraded, 'node')} failed later (degraded). A complete revision stays valid: fix those nodes (see their messages), their agents report again.`
        : v.attention.length > 0
          ? `Every node the rollout reached runs ${name}, but not everything is in force: see the Attention lines (\`kubectl nodenet why NODE\` explains a node).`
          : `Nothing to do: every target node runs ${name}.`;
    case 'Paused': {
      // The fleet's pause is lifted by `resume` without a revision (`resume REV` answers "not paused").
      const resume = [
        ...(v.pausedBy.revision ? [`\`kubectl nodenet resume ${name}\``] : []),
        ...(v.pausedBy.fleet ? ['`kubectl nodenet resume` (the whole fleet)'] : []),
      ];
      return `No new node starts while paused; nodes in progress (${v.counts.ongoing}) finish. Continue with ${resume.join(' and ')}.`;
    }
    case 'RollingBack': {
      const r = v.restoring!;
      const left = r.remaining.length
        ? `are being rolled back to ${name} (${plural(r.remaining.length, 'node')} left: ${r.remaining.join(', ')})`
        : `are back on ${name}; the configurator counts it complete again shortly`;
      return `${r.from} is invalid: the nodes that took it ${left}. Nothing to do; follow it with \`kubectl nodenet status ${r.from}\`.`;
    }
    case 'WaitingForUnavailable': {
      const w = v.waitingFor ?? [];
      return `Every available node runs ${name}; ${plural(w.length, 'node')} unavailable and skipped (${w.join(', ')}): each takes ${name} when its agent answers again, counted like any node. See \`kubectl nodenet why ${w[0] ?? 'NODE'}\`; a node that will not return: delete its Node object.`;
    }
    case 'RollingOut':
      return `${plural(v.counts.ongoing, 'node')} in progress; ${v.counts.queued} queued start as slots free up. Stop new starts with \`kubectl nodenet pause ${name}\`; give up and roll back with \`kubectl nodenet abort ${name}\`.`;
  }
}

export function statusExitCode(v: StatusView): ExitCode {
  if (v.phase === 'Halted' || v.counts.failed > 0 || v.counts.degraded > 0 || v.attention.length > 0)
    return EXIT.attention;
  if (v.phase === 'RollingOut' || v.phase === 'Paused' || v.phase === 'RollingBack') return EXIT.pending;
  return EXIT.ok;
}

export function renderStatus(v: StatusView, nowMs: number): string {
  const c = v.counts;
  const out: string[] = [];
  const phaseText: Record<Phase, string> = {
    Complete: 'Complete',
    RollingOut: 'Rolling out',
    Paused: 'Paused',
    Halted: 'Halted: revision is invalid',
    Superseded: `Superseded by ${v.inForce ?? 'a newer revision'}`,
    RollingBack: `Restoring: nodes roll back to this revision from ${v.restoring?.from ?? 'an invalid revision'}`,
    WaitingForUnavailable: `Complete on every available node; waiting for ${plural(v.waitingFor?.length ?? 0, 'unavailable node')}`,
  };
  out.push(`Revision:  ${v.revision.name} (number ${v.revision.number})`);
  out.push(`State:     ${phaseText[v.phase]}`);
  // An invalid revision has no targets left (its nodes move back): a bar would only show 0/0.
  for (const a of v.attention) out.push(`Attention: ${a}`);
  // Its nodes move on: the bar would fall to 0/0 and read as "never ran"; say how many ran it.
  if (v.phase === 'Superseded') out.push(`Ran on:    ${plural(c.ranOn, 'node')} (most ready at once)`);
  if (v.phase !== 'Halted') {
    if (v.phase !== 'Superseded')
      out.push(`Progress:  ${progressBar(c.ready, c.total)} ${c.ready}/${c.total} ready`);
    out.push(
      `Nodes:     ready ${c.ready}, ongoing ${c.ongoing}, queued ${c.queued}, failed ${c.failed}, degraded ${c.degraded}, total ${c.total}`,
    );
    if (v.unchanged)
      out.push(`Unchanged: ${plural(v.unchanged, 'node')} unchanged by this revision (moved without a slot)`);
  } else out.push(`Nodes:     failed ${c.failed}${c.degraded ? `, degraded ${c.degraded}` : ''}`);
  if (v.wave)
    out.push(
      `Wave:      ${v.wave.label}=${v.wave.values.length ? v.wave.values.join(', ') : '(none in progress)'}`,
    );
  if (v.disruption) out.push(`Hosts:     ${disruptionText(v.disruption)}`);
  if (v.startedAt) out.push(`Started:   ${v.startedAt} (${age(v.startedAt, nowMs)} ago)`);
  if (v.completedAt) out.push(`Completed: ${v.completedAt} (${age(v.completedAt, nowMs)} ago)`);
  for (const r of v.reasons) out.push(`Why:       ${r}`);
  if (v.inProgress.length > 0) {
    out.push('', 'In progress:');
    out.push(
      table(
        ['NODE', 'STATE', 'SINCE', 'MESSAGE'],
        v.inProgress.map((p) => [p.node, p.state, age(p.since, nowMs), p.message]),
      ).trimEnd(),
    );
  }
  for (const [title, list] of [
    ['Failed nodes:', v.failedNodes],
    ['Degraded nodes:', v.degradedNodes],
  ] as const) {
    if (list.length === 0) continue;
    out.push('', title);
    out.push(
      table(
        ['NODE', 'AGE', 'MESSAGE'],
        list.map((f) => [f.node, age(f.at, nowMs), f.message]),
      ).trimEnd(),
    );
  }
  out.push('', `Next: ${v.next}`);
  return out.join('\n') + '\n';
}

/** `l2-interruption at worst against rev-…: 4 nodes: 2 unchanged, 2 l2-interruption` (diff --host's summary). */
export function disruptionText(d: RevisionDisruption): string {
  const counts = {
    unchanged: 0,
    none: 0,
    refilter: 0,
    'session-reset': 0,
    'l2-interruption': 0,
    'vrf-rebuild': 0,
    refused: 0,
  };
  const summary = countsText({ ...counts, ...d.nodes }, d.worst).replace(/ \(worst: [^)]*\)$/, '');
  return `${d.worst} at worst, against ${d.from ?? 'nothing'}: ${summary} (kubectl nodenet diff --host for the plan)`;
}
