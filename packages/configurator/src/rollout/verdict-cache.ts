/**
 * What plan() asks of a cache of verdicts (the incremental planner's memo, incremental.ts): the
 * verdicts of one evaluation, reused where their inputs are unchanged. plan() names this interface,
 * not the memo, so the rules do not depend on the machinery that keeps them.
 */
import type { NetworkConfigRevision } from '@nodenet/api';
import type { Policy } from '../policy/policy.js';
import type { Subject, Verdict } from './classify.js';

/** What one evaluation is made against, besides each node's own objects. */
export interface Evaluation {
  revisions: readonly NetworkConfigRevision[];
  desired: NetworkConfigRevision;
  invalid: ReadonlySet<string>;
  policy: Policy;
  mono: number;
}

/** The nodes of one evaluation: their names in plan()'s order, each one's inputs, and its verdict made afresh. */
export interface EvaluationNodes {
  names: readonly string[];
  subject: (name: string) => Subject;
  make: (subject: Subject) => Verdict;
}

export interface VerdictCache {
  /** The verdict of every node of `nodes.names`, in that order. */
  verdicts(e: Evaluation, nodes: EvaluationNodes): Verdict[];
}
