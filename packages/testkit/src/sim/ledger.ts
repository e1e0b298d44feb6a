/**
 * The invariants of issue 23, checked after every pass on what a user can see (not on the planner's
 * own labels): moves are judged by revision identity, bad changes by content.
 * (1) distinct nodes harmed-by-content whose agent applied (or refused) a bad change they were handed,
 *     per introduction of it, ≤ limit + max-failures;
 * (2) no forward move while the fleet or the revision is paused;
 * (3) no revision invalidated by a node that was never handed it, that was unavailable when handed
 *     it, or whose failure was an interruption;
 * (4) once faults stop, every available node converges (checked by the world at the end);
 * (5) nodes with an unanswered forward assignment ≤ limit, across leader changes;
 * (6) no node loses an input that the failing change did not touch (issue 35, rollback.ts below).
 */
import type { NetworkConfigRevision } from '@nodenet/api';
import { hostRevision, leavingBase } from './host-revision.js';
import { contentOf } from './planner-adapter.js';
import type { PassEvent } from './planner-pass.js';
import type { LedgerView } from './ledger-view.js';

export type InvariantId = 1 | 2 | 3 | 4 | 5 | 6;

export interface Violation {
  invariant: InvariantId;
  t: number;
  message: string;
}

/** The planner's quick re-assignments after an Interrupted report (progress.ts MAX_INTERRUPTED_ATTEMPTS). */
const QUICK_REASSIGNMENTS = 3;

const badKey = (b: { input: string; value: number }): string => `${b.input}=${b.value}`;

/** World's reason for a node whose agent has not reported anything yet. */
export const NEVER_REPORTED = 'agent never reported';

export class Ledger {
  readonly violations: Violation[] = [];
  /** Invariant 6: revision numbers some node's agent reported `provisioned` on (it ran there). */
  readonly ran = new Set<number>();
  /** Invariant 6: per node, the revision numbers its agent reported `provisioned` on, oldest first. */
  private readonly ranSeq = new Map<string, number[]>();
  /** Per bad change: the nodes it reached in its current introduction. */
  private readonly episodes = new Map<string, { receivers: Set<string>; since: number }>();
  /** Per node: the revision number it holds by identity, and per (node, number) when and how it was handed. */
  readonly holds = new Map<string, number>();
  private readonly handed = new Map<string, { at: number; unavailable?: string; agentOk?: boolean }>();
  /** Per node: the revision it was last handed, until its agent applies it (invariant 1). */
  private readonly handedLast = new Map<
    string,
    { hash: string; revision: NetworkConfigRevision; label: string }
  >();
  /** Per bad change, the most nodes it reached in one introduction (for the blast-radius report). */
  readonly reach = new Map<string, number>();
  /** Per node: its last assignment, by identity a rollback or not, and when. */
  readonly lastAssign = new Map<
    string,
    {
      number: number;
      rollback: boolean;
      lateJoin: boolean;
      at: number;
      /** A move the planner called unchanged whose revision has the content of the node's last one. */
      unchanged?: boolean;
    }
  >();

  constructor(private readonly stopAtFirst = true) {}

  fail(invariant: InvariantId, t: number, message: string): void {
    if (this.stopAtFirst && this.violations.length > 0) return;
    if (this.violations.length >= 100) return;
    this.violations.push({ invariant, t, message });
  }

  /** The node's NodeConfig is gone (deleted by a person, or the node re-joins): it holds nothing. */
  forget(node: string): void {
    this.holds.delete(node);
    this.lastAssign.delete(node);
    this.ranSeq.delete(node);
  }

  /** A person (re)introduced the bad change (wrote it, or retried a revision carrying it). */
  introduce(b: { input: string; value: number }, t: number): void {
    this.episodes.set(badKey(b), { receivers: new Set(), since: t });
  }

  /** Checks and records one pass's events (before the pass's own changes to pause state). */
  pass(events: readonly PassEvent[], v: LedgerView, invalidBefore: ReadonlySet<string>, check = true): void {
    if (!check) {
      for (const e of events)
        if (e.kind === 'assign') {
          this.holds.set(e.node, e.number);
          this.handed.set(`${e.node}|${e.number}`, { at: v.t });
          this.lastAssign.set(e.node, { number: e.number, rollback: false, lateJoin: false, at: v.t });
        }
      return;
    }
    const invalidNow = new Set(invalidBefore);
    const before = new Map(this.lastAssign);
    for (const e of events) if (e.kind === 'invalidate') invalidNow.add(e.revision);
    for (const e of events) {
      if (e.kind === 'invalidate') this.invalidation(e, v);
      else if (e.kind === 'assign') this.assignment(e, v, invalidNow);
      else if (e.kind === 'collect') {
        this.holds.delete(e.node);
        this.lastAssign.delete(e.node);
      }
    }
    // (5) one pass never starts more forward moves than the limit.
    // Forgotten NodeConfigs (collected, deleted by a person) make the next assignment a join.
    const started = events.filter(
      (e) =>
        e.kind === 'assign' &&
        this.lastAssign.get(e.node)?.rollback === false &&
        // A node joining a completed revision is not part of its rollout (as a DaemonSet's new node).
        this.lastAssign.get(e.node)?.lateJoin === false &&
        // A move that leaves the host config as it is reaches nothing (issue 26).
        this.lastAssign.get(e.node)?.unchanged !== true &&
        before.get(e.node)?.at !== v.t,
    );
    if (started.length > v.limit)
      this.fail(
        5,
        v.t,
        `t=${fmt(v.t)} one pass started ${started.length} non-rollback moves (${started.map((e) => (e as { node: string }).node).join(', ')}) > limit ${v.limit}`,
      );
  }

  private assignment(
    e: Extract<PassEvent, { kind: 'assign' }>,
    v: LedgerView,
    invalid: ReadonlySet<string>,
  ): void {
    const r = v.revision(e.revision);
    const { prevNumber, prev, rollback } = this.moveFrom(e, v, invalid);
    const lateJoin = prevNumber === undefined && r?.status?.completedAt !== undefined;
    const label = `t=${fmt(v.t)} assign ${e.node} -> rev ${e.number} (${e.move}${rollback ? ', from invalid rev ' + prevNumber : ''})`;
    // (2) paused: only rollbacks (by identity) and late joiners of a completed revision move.
    const paused = v.fleetPaused || r?.spec.paused === true;
    if (paused && !rollback && !lateJoin)
      this.fail(
        2,
        v.t,
        `${label} while ${v.fleetPaused ? 'the fleet' : `revision ${e.number}`} is paused (node held rev ${prevNumber ?? 'none'})`,
      );
    // (1) is checked when the node's agent applies (or refuses) what it was handed: a node whose
    // agent never got to it (dead, misconfigured, cut off first) was not reached.
    if (r) this.handedLast.set(e.node, { hash: r.spec.hash, revision: r, label });
    this.noCollateralLoss(e, v, invalid, label);
    const unavailable = v.unavailable(e.node);
    this.handed.set(`${e.node}|${e.number}`, {
      at: v.t,
      ...(unavailable ? { unavailable } : {}),
      agentOk: v.agentOk(e.node),
    });
    this.holds.set(e.node, e.number);
    // Ground truth for a move the planner made without a slot: the content did not change.
    const prevContent = prev ? v.nodeContent(e.node, prev) : prevNumber === 0 ? {} : undefined; // 0: the empty config
    const unchanged =
      e.move === 'unchanged' &&
      prevContent !== undefined &&
      r !== undefined &&
      JSON.stringify(prevContent) === JSON.stringify(v.nodeContent(e.node, r));
    this.lastAssign.set(e.node, {
      number: e.number,
      rollback,
      lateJoin,
      at: v.t,
      ...(unchanged ? { unchanged } : {}),
    });
  }

  /** Where the node moves from, and whether the move is a rollback by identity (away from an invalid revision). */
  private moveFrom(e: Extract<PassEvent, { kind: 'assign' }>, v: LedgerView, invalid: ReadonlySet<string>) {
    const prevNumber = this.holds.get(e.node);
    const prev = prevNumber !== undefined ? v.revisionByNumber(prevNumber) : undefined;
    const fromInvalid =
      prev !== undefined &&
      (invalid.has(prev.metadata.name) || prev.status?.isInvalid === true || prev.spec.aborted === true);
    // A failed rollback is retried under a new assignment of the same revision (#23): still a rollback.
    const retriedRollback =
      prevNumber === e.number && e.move === 'rollback' && this.lastAssign.get(e.node)?.rollback === true;
    const rollback = (fromInvalid && prevNumber !== e.number) || retriedRollback;
    return { prevNumber, prev, rollback };
  }

  /** (1) The node's agent finished applying (or refused) `hash`: bad content reached one more node. */
  evaluated(node: string, hash: string, v: LedgerView): void {
    const h = this.handedLast.get(node);
    if (h?.hash !== hash) return;
    this.handedLast.delete(node);
    for (const b of v.harms(node, h.revision)) {
      const k = badKey(b);
      const ep = this.episodes.get(k) ?? { receivers: new Set<string>(), since: v.t };
      this.episodes.set(k, ep);
      ep.receivers.add(node);
      this.reach.set(k, Math.max(this.reach.get(k) ?? 0, ep.receivers.size));
      const bound = v.limit + v.maxFailures;
      if (ep.receivers.size > bound)
        this.fail(
          1,
          v.t,
          `bad change ${k} reached ${ep.receivers.size} nodes (${[...ep.receivers].join(', ')}) > limit ${v.limit} + max-failures ${v.maxFailures}; last: ${h.label}, applied at t=${fmt(v.t)}`,
        );
    }
  }

  private invalidation(e: Extract<PassEvent, { kind: 'invalidate' }>, v: LedgerView): void {
    if (e.aborted) return;
    for (const f of e.failedNodes) {
      const h = this.handed.get(`${f.node}|${e.number}`);
      const what = `INVALIDATE rev ${e.number} by ${f.node} ("${f.message}")`;
      if (!h) this.fail(3, v.t, `${what}: ${f.node} was never handed rev ${e.number}`);
      // A node unavailable when handed the revision may still fail it when the change harms it
      // (its agent answered and refused it); otherwise it is not the revision's fault.
      // An agent that never reported before and then answers with an explicit failure has answered:
      // the planner cannot tell a broken new agent from a change that fails on it, and on a fresh
      // cluster every node is new, so such an answer must count (or a bad first revision would
      // reach every node). Only silence from a node unavailable beforehand is never its fault.
      // Issue 35: a new node whose agent answered the assignment (it took a catch-up) is a node in
      // flight like any other: its NotReady or its deletion afterwards counts as anyone's.
      else if (
        h.unavailable &&
        !(
          h.unavailable === NEVER_REPORTED &&
          (v.reportedInvalidOn(f.node, e.number) || v.answeredSince(f.node, e.number, h.at))
        ) &&
        this.harmless(v, f.node, e.number)
      )
        this.fail(
          3,
          v.t,
          `${what}: ${f.node} was unavailable (${h.unavailable}) when handed it at t=${fmt(h.at)}`,
        );
      // An Interrupted report counts when the node also went NotReady since it was handed the
      // revision (the planner cannot tell that from a cut-off healing slowly): never when neither
      // the change harms it nor its kubelet went NotReady (an agent restart).
      else if (
        v.interruptedOn(f.node, e.number, h.at) &&
        this.harmless(v, f.node, e.number) &&
        !v.notReadySince(f.node, h.at) &&
        // ...or when it repeats past the planner's quick re-assignments (3): a cut-off restored
        // before its NotReady shows looks the same (issue 35).
        v.interruptions(f.node, e.number) <= QUICK_REASSIGNMENTS
      )
        this.fail(3, v.t, `${what}: the node's report was Interrupted, not the change's fault`);
      else {
        // Ground truth: nothing went wrong on the node since it was handed the revision, and the
        // revision's content does not harm it: the invalidation is false (e.g. a timeout of 0).
        const r = v.revisionByNumber(e.number);
        const fault = v.lastFaultAt(f.node);
        const faultFree = h.agentOk === true && (fault === undefined || fault < h.at);
        if (r && faultFree && v.harms(f.node, r).length === 0)
          this.fail(
            3,
            v.t,
            `${what}: a good revision failed on a healthy node (no fault since it was handed it at t=${fmt(h.at)})`,
          );
      }
    }
  }

  /**
   * (6) A rollback takes back only the failed change (issue 35). A node moved to a revision without
   * an input its host runs, while the input still exists, may lose it only
   * - when it leaves an invalid revision: if the revision it ran before that one (and still valid)
   *   did not have the input (the failed change gave it to this node);
   * - otherwise: if the newest valid revision older than the newest invalid one that some node ran
   *   and none failed did not have it (the failed change added it: a held-back suspect).
   * Never "the empty configuration" because nothing had completed yet.
   */
  private noCollateralLoss(
    e: Extract<PassEvent, { kind: 'assign' }>,
    v: LedgerView,
    invalid: ReadonlySet<string>,
    label: string,
  ): void {
    const host = v.hostContent(e.node);
    if (!host) return;
    const r = v.revision(e.revision);
    const to = r ? contentOf(r) : e.number === 0 ? {} : undefined;
    if (!to) return;
    // Taking a bad change away, or rolling out forward a person's deletion (seed 101), is no loss.
    const taken = (k: string): boolean =>
      v.takenRightly(k, host[k] as number, e.move === 'forward' ? e.number : undefined);
    const lost = Object.keys(host).filter((k) => !(k in to) && v.inputExists(k) && !taken(k));
    if (lost.length === 0) return;
    const all = v.revisionsNewestFirst();
    // An abort of a revision that completed changes nothing (the planner does not undo it).
    const isInvalidNow = (x: NetworkConfigRevision): boolean =>
      invalid.has(x.metadata.name) ||
      x.status?.isInvalid === true ||
      (x.spec.aborted === true && x.status?.completedAt === undefined);
    const held = this.holds.get(e.node);
    // Forward (past the revision its host runs) to a completed, valid revision: what that revision
    // took away rolled out (a person's deletion, seed 23), not the failing change's doing.
    const runs = hostRevision(this.ranSeq.get(e.node) ?? [], host, (n) => v.revisionByNumber(n));
    if (r?.status?.completedAt !== undefined && e.number > (runs ?? Infinity) && !isInvalidNow(r)) return;
    const leaving = all.find((x) => x.spec.number === held && isInvalidNow(x));
    let base: NetworkConfigRevision | undefined;
    let what: string;
    if (leaving) {
      ({ base, what } = leavingBase(this.ranSeq.get(e.node) ?? [], leaving, all, isInvalidNow));
    } else {
      const failing = all.find(isInvalidNow);
      base = failing
        ? all.find(
            (x) =>
              x.spec.number < failing.spec.number &&
              !isInvalidNow(x) &&
              this.ran.has(x.spec.number) &&
              (x.status?.failedNodes ?? []).length === 0,
          )
        : undefined;
      what = failing
        ? `the failing change is rev ${failing.spec.number}; rev ${base?.spec.number} ran before it`
        : 'no change failed';
      if (!failing) {
        this.fail(6, v.t, `${label}: ${e.node} loses input(s) ${lost.join(', ')}; ${what}`);
        return;
      }
    }
    const untouched = base ? lost.filter((k) => k in contentOf(base)) : [];
    if (untouched.length > 0)
      this.fail(
        6,
        v.t,
        `${label}: ${e.node} loses input(s) ${untouched.join(', ')} that the failed change did not add (${what} and has them)`,
      );
  }

  /** (6) The node's agent reported revision `number` provisioned: it ran there. */
  ranOn(node: string, number: number): void {
    this.ran.add(number);
    const seq = this.ranSeq.get(node) ?? [];
    if (seq[seq.length - 1] !== number) seq.push(number);
    if (seq.length > 20) seq.shift();
    this.ranSeq.set(node, seq);
  }

  private harmless(v: LedgerView, node: string, number: number): boolean {
    const r = v.revisionByNumber(number);
    return r === undefined || v.harms(node, r).length === 0;
  }

  /** (5) after a pass: nodes with an unanswered forward assignment. */
  inFlight(nodes: readonly string[], v: LedgerView): void {
    if (nodes.length > v.limit)
      this.fail(
        5,
        v.t,
        `t=${fmt(v.t)} ${nodes.length} nodes in progress at once (${nodes.join(', ')}) > limit ${v.limit}`,
      );
  }

  convergence(problems: readonly string[], t: number): void {
    if (problems.length) this.fail(4, t, `not converged after the faults stopped: ${problems.join('; ')}`);
  }
}

export const fmt = (ms: number): string => `${Math.round(ms / 100) / 10}s`;
