/**
 * The incremental planner (issue 26): `plan()` with each node's verdict kept between passes and
 * re-evaluated only when one of its inputs changed. A verdict (with the spec and content hashes it
 * took) is a function of the node's Node (compared by what classify reads of it), NodeConfig and
 * observation (informer objects are replaced, never mutated, and observe() keeps an unchanged
 * observation's object), of what classify reads from
 * the revisions (names, numbers, hashes, completion, invalid and abort marks, retries, pauses), of
 * the desired revision, the policy, and the clock only through its deadline. So a kept verdict is
 * reused while all of those are the same objects or values and its deadline has not passed; a
 * verdict carrying a failure, and a node NotReady, unavailable or failed, is always made afresh
 * (`reusable`). The pure
 * `plan()` stays the reference: the simulator compares both on every pass of random histories
 * (test/sim/incremental.test.ts).
 */
import type { NetworkConfigRevision, NodeConfig } from '@nodenet/api';
import type { Policy } from '../policy/policy.js';
import type { Subject, Verdict } from './classify.js';
import type { NodeObservation } from './observe.js';
import { plan } from './plan.js';
import type { NodeInfo, Plan, PlanInput } from './types.js';

interface Kept {
  node: string | undefined;
  nc: NodeConfig | undefined;
  obs: NodeObservation | undefined;
  key: string;
  verdict: Verdict;
  /** Reused before this (monotonic ms): its deadline; -Infinity when never reusable. */
  until: number;
  /** The revisionEpoch whose revision objects the verdict points at. */
  epoch: number;
}

/** The verdicts of one evaluation (one desired revision within one pass). */
export interface MemoPass {
  get(subject: Subject): Verdict | undefined;
  set(subject: Subject, v: Verdict): void;
}

/** What one evaluation is made against, besides each node's own objects. */
export interface Evaluation {
  revisions: readonly NetworkConfigRevision[];
  desired: NetworkConfigRevision;
  invalid: ReadonlySet<string>;
  policy: Policy;
  mono: number;
}

/**
 * What classify reads of a Node, as one string: a Node object is replaced on every kubelet
 * heartbeat (and a NodeInfo may be built afresh per pass), so it is compared by content.
 */
const labelKeys = new WeakMap<Record<string, string>, string>();
const nodeKeys = new WeakMap<NodeInfo, string>();
function nodeKey(n: NodeInfo | undefined): string | undefined {
  if (n === undefined) return undefined;
  let key = nodeKeys.get(n);
  if (key !== undefined) return key;
  let labels = labelKeys.get(n.labels);
  if (labels === undefined) labelKeys.set(n.labels, (labels = JSON.stringify(n.labels)));
  key = `${n.uid ?? ''}|${n.ready ? 1 : 0}|${n.deleting === true ? 1 : 0}|${n.agentStarting === true ? 1 : 0}|${labels}`;
  nodeKeys.set(n, key);
  return key;
}

const policyKeys = new WeakMap<Policy, string>();
const policyKey = (p: Policy): string => {
  let k = policyKeys.get(p);
  if (k === undefined) policyKeys.set(p, (k = JSON.stringify(p)));
  return k;
};

/**
 * Whether a verdict may be kept at all. A failure carries this pass's wall clock; a node NotReady,
 * unavailable or failed may change by itself without a deadline of its own (e.g. an in-flight node
 * past --not-ready-timeout reads differently once its soak would have ended): those few are made
 * afresh every pass.
 */
const reusable = (v: Verdict): boolean =>
  v.failure === undefined && v.state !== 'unavailable' && v.state !== 'failed' && v.state !== 'notReady';

/** What classify, targetFor and the unchanged rule read from the revisions, as one string. */
function revisionsKey(
  revisions: readonly NetworkConfigRevision[],
  desired: NetworkConfigRevision,
  invalid: ReadonlySet<string>,
): string {
  const parts = revisions.map(
    (r) =>
      `${r.metadata.name}|${r.spec.number}|${r.spec.hash}|${r.status?.completedAt ?? ''}|${invalid.has(r.metadata.name) ? 1 : 0}|${r.status?.isInvalid === true ? 1 : 0}|${r.spec.aborted === true ? 1 : 0}|${r.spec.paused === true ? 1 : 0}|${r.spec.retryOf ?? ''}`,
  );
  return `${desired.metadata.name}#${parts.join(',')}`;
}

/** Evaluation keys remembered (a pass evaluates one or a few desired revisions). */
const MAX_KEYS = 8;

/** Per node, the last verdict and the inputs it was made from. */
export class VerdictMemo {
  private readonly kept = new Map<string, Kept>();
  /** The revision objects of the last pass, and their number (revisionEpoch). */
  private revisionObjects: readonly NetworkConfigRevision[] = [];
  private epoch = 0;
  /** The evaluation keys of recent passes, each kept as one string object. */
  private readonly keys = new Map<string, string>();
  /** Verdicts reused and made afresh, since the start (for the bench and tests). */
  readonly counts = { reused: 0, made: 0 };

  /** Starts one evaluation; nodes not asked for in a whole pass are forgotten by `sweep`. */
  pass({ revisions, desired, invalid, policy, mono }: Evaluation): MemoPass {
    const fresh = `${policyKey(policy)}#${revisionsKey(revisions, desired, invalid)}`;
    // The same text as a kept verdict's key is that very string: each node compares one pointer.
    const key = this.keys.get(fresh) ?? fresh;
    this.keys.set(key, key);
    if (this.keys.size > MAX_KEYS) this.keys.delete(this.keys.keys().next().value as string);
    const epoch = this.revisionEpoch(revisions);
    const byName = new Map(revisions.map((r) => [r.metadata.name, r]));
    // A kept verdict points at the revision objects of its pass: point it at today's (equal in
    // everything it read, by the key).
    const current = (r: NetworkConfigRevision | undefined): NetworkConfigRevision | undefined =>
      r === undefined ? undefined : (byName.get(r.metadata.name) ?? r);
    return {
      get: ({ name, node, nc, observation: obs }) => {
        const k = this.kept.get(name);
        if (!k || k.key !== key || k.nc !== nc || k.obs !== obs || obs === undefined) return undefined;
        if (mono >= k.until || k.node !== nodeKey(node)) return undefined;
        this.counts.reused++;
        const v = k.verdict;
        if (k.epoch === epoch && node === v.node) return v;
        const assigned = current(v.assigned);
        const target = current(v.target);
        k.epoch = epoch;
        k.verdict = { ...v, node, ...(assigned ? { assigned } : {}), ...(target ? { target } : {}) };
        return k.verdict;
      },
      set: ({ name, node, nc, observation: obs }, verdict) => {
        this.counts.made++;
        const until = reusable(verdict) ? (verdict.deadline ?? Infinity) : -Infinity;
        this.kept.set(name, { node: nodeKey(node), nc, obs, key, verdict, until, epoch });
      },
    };
  }

  /** Numbers the revision objects: the same number while every one is the object it was. */
  private revisionEpoch(revisions: readonly NetworkConfigRevision[]): number {
    const last = this.revisionObjects;
    if (last.length !== revisions.length || revisions.some((r, i) => r !== last[i])) {
      this.revisionObjects = [...revisions];
      this.epoch++;
    }
    return this.epoch;
  }

  /**
   * Forgets the nodes that are neither a Node nor a NodeConfig any more, once more are kept than
   * `bound` (the Nodes and NodeConfigs of this pass): memory stays bounded, and a pass where
   * nothing went away pays nothing.
   */
  sweep(bound: number, names: () => ReadonlySet<string>): void {
    if (this.kept.size <= bound) return;
    const live = names();
    for (const name of this.kept.keys()) if (!live.has(name)) this.kept.delete(name);
  }

  get size(): number {
    return this.kept.size;
  }
}

/** The planner the controller runs: `plan()` with the verdicts kept between passes. */
export class IncrementalPlanner {
  readonly memo = new VerdictMemo();

  plan(input: PlanInput): Plan {
    const p = plan(input, this.memo);
    this.memo.sweep(
      input.nodes.length + input.nodeConfigs.length,
      () => new Set([...input.nodes.map((n) => n.name), ...input.nodeConfigs.map((nc) => nc.metadata.name)]),
    );
    return p;
  }
}
