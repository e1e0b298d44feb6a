/**
 * Classification of one node (pure; the slot step decides moves from these verdicts), following the
 * definitions of docs/rollout.md "The model": a node **in flight** took a revision forward and has
 * not finished or failed it, on whichever revision that is (it holds a slot across revisions, and
 * its failure counts against the revision that was assigned, superseded or not); a node whose agent
 * is not answering before it is handed a new revision is **unavailable**: no forward move, never
 * counted. Deadlines are on the monotonic clock from the observations (observe.ts).
 */
import { matchesSelector, rfc3339, type NetworkConfigRevision, type NodeConfig } from '@nodenet/api';
import { formatDuration } from '@nodenet/kube';
import { elsewhereVerdict } from './elsewhere.js';
import { factsOf } from './facts.js';
import { assignedRevision } from './identity.js';
import { sameStretch, type NodeObservation } from './observe.js';
import { onDesiredVerdict } from './on-desired.js';
import { everReported, progress, type Progress } from './progress.js';
import {
  countedMove,
  type Base,
  type ClassifyContext,
  type Facts,
  type NodeReading,
  type Subject,
  type Verdict,
} from './verdict.js';

export type { ClassifyContext, Subject, Verdict } from './verdict.js';

type Readiness = NodeObservation['readiness'];

export function classify(subject: Subject, ctx: ClassifyContext): Verdict {
  return refusedWrite(classifyNode(subject, ctx));
}

/**
 * A node waiting for a move whose NodeConfig the API server refuses to write (NodeInfo.assignRefused)
 * is unavailable: it holds no slot and takes no move until the configurator tries it again, and
 * what it failed before (a failure waiting for its re-assignment) stays recorded as it was. A node
 * in flight keeps its state: its agent still works on what it has.
 */
function refusedWrite(v: Verdict): Verdict {
  const why = v.node?.assignRefused;
  if (why === undefined || v.busyElsewhere === true) return v;
  if (!(v.state === 'outdated' || (v.state === 'failed' && v.reassign !== undefined))) return v;
  const { reassign: _r, hostOnDesired: _h, ...rest } = v;
  return { ...rest, state: 'unavailable', unavailable: `unavailable: ${why}` };
}

function classifyNode(subject: Subject, ctx: ClassifyContext): Verdict {
  const { name, node, nc } = subject;
  const reading = readNode(subject, ctx);
  if (!nc) {
    if (!reading.selected) return { name, node, nc, state: undefined };
    // A node whose agent is still starting (its start-up taint) needs a NodeConfig to finish its first
    // apply and remove the taint: it is handed one (a never-reported agent's silence never counts).
    return reading.down ? reading.unavailable(reading.down) : { name, node, nc, state: 'outdated' };
  }
  const f = factsOf(nc);
  const assigned = assignedRevision(nc, ctx.index);
  const b: Base = { name, node, nc, ...(assigned ? { assigned } : {}) };
  const p = cutOffSignature(progress(nc, reading.obs, ctx.policy, ctx.mono), f, assigned, reading);
  const forward = countedMove(f.move, assigned);
  const l: NodeReading = {
    ...reading,
    soakEnd: p.kind === 'provisioned' ? soakEndOf(p.since, reading.obs, ctx.policy) : undefined,
    fail: (message, counts = forward) => ({
      ...b,
      state: 'failed',
      counts,
      ...(assigned ? { failedRevision: assigned.metadata.name } : {}),
      failure: { node: name, message, at: rfc3339(ctx.now) },
    }),
  };
  const onDesired =
    assigned !== undefined &&
    assigned.spec.number === ctx.desired.spec.number &&
    (ctx.expectedSpecHash === undefined || f.specHash === ctx.expectedSpecHash);
  // An agent that found itself misconfigured before it ever reported never applied the change: its
  // node is unavailable (pre-existing), and holds nothing.
  if (forward && misconfiguredBeforeAnswering(l.down, f, nc))
    return l.unavailable(`agent misconfigured: ${f.misconfigured}`);
  if (forward) {
    const v = inFlightVerdict({ b: { ...b, onDesired }, p, f, l });
    if (v) return v;
  }
  return onDesired ? onDesiredVerdict(b, p, f, l) : elsewhereVerdict(b, p, f, l);
}

/**
 * An `Interrupted` report (the agent's checks passed, but the API server answered only more than
 * 15 s after its restore: agent apply/failure-cause.ts) from a node that went NotReady or gone since
 * it took the revision forward is a cut-off by the change, healing slowly: counted as ChangeFailed.
 * An agent restart (a DaemonSet update) leaves the kubelet Ready and stays a re-assignment.
 */
function cutOffSignature(
  p: Progress,
  f: Facts,
  assigned: NetworkConfigRevision | undefined,
  reading: Omit<NodeReading, 'soakEnd' | 'fail'>,
): Progress {
  if (p.kind !== 'invalid' || p.cause !== 'Interrupted' || !countedMove(f.move, assigned)) return p;
  // NotReady before the report was seen (an outage after it, e.g. the Node deleted, is not its cause).
  const { obs } = reading;
  const downBefore = obs.downMs > 0 || (reading.down !== undefined && obs.readinessSince <= obs.statusSince);
  if (!downBefore) return p;
  return {
    ...p,
    cause: 'ChangeFailed',
    message: `${p.message} (reported Interrupted, but the node went NotReady after taking the change: a cut-off)`,
  };
}

/** What a verdict reads of the node before its NodeConfig: readiness, since when, selection. */
function readNode(
  { name, node, nc, observation }: Subject,
  ctx: ClassifyContext,
): Omit<NodeReading, 'soakEnd' | 'fail'> {
  const { mono } = ctx;
  // Readiness is the Node's now; the observation only says since when (first seen now if unknown).
  const readiness: Readiness = !node || node.deleting ? 'gone' : node.ready ? 'ready' : 'notReady';
  const obs: NodeObservation = {
    assignSince: observation?.assignSince ?? mono,
    statusSince: observation?.statusSince ?? mono,
    renewal: observation?.renewal,
    renewalSince: observation?.renewalSince ?? mono,
    readiness,
    readinessSince:
      observation && sameStretch(observation.readiness, readiness) ? observation.readinessSince : mono,
    downMs: observation?.downMs ?? 0,
    readyRunMs: observation?.readyRunMs ?? 0,
  };
  const selected = node !== undefined && matchesSelector(ctx.policy.nodeSelector, node.labels);
  return {
    ctx,
    obs,
    down: readiness !== 'ready' ? (readiness === 'gone' ? 'Node gone' : 'NotReady') : undefined,
    starting: node?.agentStarting === true ? 'start-up taint present (agent not ready yet)' : undefined,
    selected,
    unavailable: (why) =>
      selected
        ? { name, node, nc, state: 'unavailable', unavailable: `unavailable: ${why}` }
        : { name, node, nc, state: undefined },
  };
}

/**
 * In flight (took its assignment forward, not finished, not failed by a report or a timeout) and
 * cut off, or its agent broke: during its rollout steps or its soak, like a DaemonSet's unavailable
 * pod it keeps its slot and holds every forward move until it is back or fails. A misconfigured
 * agent (Ready) keeps them until it answers: it never applied the change nor refused it, and would
 * apply it once fixed (a self-check failure is not the change's doing, so it never fails the
 * revision either). Undefined: not such a node.
 */
function inFlightVerdict(a: {
  b: Base & { onDesired: boolean };
  p: Progress;
  f: Facts;
  l: NodeReading;
}): Verdict | undefined {
  const { b, p, f, l } = a;
  const { obs, down, soakEnd, ctx } = l;
  // Down now: finished only when it went down after a Ready stretch as long as the soak, or after
  // its soak's end without an outage before (soakEndOf).
  const finished =
    soakEnd !== undefined &&
    ctx.mono >= soakEnd &&
    (down === undefined ||
      obs.readyRunMs >= ctx.policy.minSuccessTimeMs ||
      (obs.downMs === 0 && obs.readinessSince >= soakEnd));
  // Its agent broke (misconfigured, Ready) on a revision now invalid: rolled back at once, never
  // held (it finds the rollback when it answers again, instead of the bad revision).
  const brokenOnInvalid =
    down === undefined &&
    f.misconfigured !== undefined &&
    b.assigned !== undefined &&
    ctx.invalid.has(b.assigned.metadata.name);
  if (
    finished ||
    p.kind === 'invalid' ||
    brokenOnInvalid ||
    (down === undefined && f.misconfigured === undefined)
  )
    return undefined;
  if (down === undefined) return { ...b, state: 'notReady', holds: true };
  // Every not-ready stretch since it took the revision counts: a node that flaps (70-90 s outages
  // again and again) reaches --not-ready-timeout as one long outage does.
  const deadline = Math.max(obs.readinessSince, obs.assignSince) + ctx.policy.notReadyTimeoutMs - obs.downMs;
  if (ctx.mono > deadline)
    return pastNotReadyTimeout({
      down,
      flapped: obs.downMs > 0,
      nc: b.nc,
      number: b.assigned?.spec.number,
      policy: ctx.policy,
      unavailable: l.unavailable,
      fail: l.fail,
    });
  return { ...b, state: 'notReady', holds: true, deadline };
}

const misconfiguredBeforeAnswering = (
  down: string | undefined,
  f: Facts,
  nc: NodeConfig | undefined,
): boolean => down === undefined && f.misconfigured !== undefined && nc !== undefined && !everReported(nc);

/**
 * When a provisioned node's soak ends: --min-success-time after the first sight of `provisioned`;
 * for a node that went NotReady in flight (and has not finished before), after a full soak of
 * continuous readiness since it came back. So a node that flaps never finishes while it flaps.
 */
export function soakEndOf(
  provisionedSince: number,
  obs: NodeObservation,
  policy: { minSuccessTimeMs: number; notReadyTimeoutMs: number },
): number {
  const soakMs = policy.minSuccessTimeMs;
  // Settled (Ready for a full soak), or failed already (its outages reached --not-ready-timeout,
  // recorded): no longer in flight, as a node back after one long outage.
  const done = obs.readyRunMs >= soakMs || obs.downMs > policy.notReadyTimeoutMs;
  const back = obs.downMs > 0 && !done && obs.readiness === 'ready' ? obs.readinessSince : provisionedSince;
  return Math.max(provisionedSince, back) + soakMs;
}

/** A node in flight, NotReady (or gone) for longer than --not-ready-timeout (in all its stretches). */
function pastNotReadyTimeout(a: {
  down: string;
  flapped: boolean;
  nc: NodeConfig | undefined;
  number: number | undefined;
  policy: { notReadyTimeoutMs: number };
  unavailable: (why: string) => Verdict;
  fail: (message: string) => Verdict;
}): Verdict {
  const what = a.down;
  // An agent that never reported anything never applied the change (it reports provisioning
  // first): NotReady or gone is the node's own, as for a timeout of a silent agent.
  if (a.nc !== undefined && !everReported(a.nc))
    return a.unavailable(`${what} and agent never reported (after taking revision ${a.number ?? '?'})`);
  const total = a.flapped ? ' in all (NotReady again and again)' : '';
  return a.fail(
    `${what} for ${formatDuration(a.policy.notReadyTimeoutMs)}${total} after taking revision ${a.number ?? '?'}`,
  );
}
