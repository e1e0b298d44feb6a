/**
 * The incremental planner (issue 26): observe() and `plan()` with what they work out per node kept
 * between passes, and worked out again only for the nodes whose inputs changed. The Nodes and
 * NodeConfigs joined by name, the observations (fleet-view.ts) and the nodes counted per revision
 * (counts.ts) are updated from the nodes whose Node or NodeConfig object changed (informer objects
 * are replaced, never mutated). A verdict (with the spec and content hashes it took) is a function
 * of the node's Node (compared by what classify reads of it), NodeConfig and observation (kept as
 * the same object while unchanged), of what classify reads from the revisions (names, numbers,
 * hashes, completion, invalid and abort marks, retries, pauses), of the desired revision, the
 * policy, and the clock only through its deadline. So a kept verdict is reused while all of those
 * are the same objects or values and its deadline has not passed; a verdict carrying a failure,
 * and a node NotReady, unavailable or failed, is always made afresh (`reusable`). A pass whose
 * evaluation is the last one's looks only at the changed nodes and the kept verdicts that expire.
 * The pure `observe()` and `plan()` stay the reference: the simulator compares both on every pass
 * of random histories (test/sim/incremental.test.ts).
 */
import { ranWell, type NetworkConfigRevision, type NodeConfig } from '@nodenet/api';
import type { Policy } from '../policy/policy.js';
import type { Subject, Verdict } from './classify.js';
import { KeptRevisionCounts } from './counts.js';
import { FleetView } from './fleet-view.js';
import type { NodeObservation, Observations } from './observe.js';
import { plan } from './plan.js';
import { KeptStartOrder } from './order.js';
import { OpenRows } from './rows.js';
import type { NodeInfo, Plan, PlanInput } from './types.js';
import type { Evaluation, EvaluationNodes, VerdictCache } from './verdict-cache.js';

export type { Evaluation, EvaluationNodes } from './verdict-cache.js';

interface Kept {
  node: string | undefined;
  nc: NodeConfig | undefined;
  obs: NodeObservation | undefined;
  key: string;
  verdict: Verdict;
  /** Reused before this (monotonic ms): its deadline; -Infinity when never reusable. */
  until: number;
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
  key = `${n.uid ?? ''}|${n.ready ? 1 : 0}|${n.deleting === true ? 1 : 0}|${n.agentStarting === true ? 1 : 0}|${labels}|${n.assignRefused ?? ''}`;
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
function revisionsKey({
  revisions,
  desired,
  invalid,
}: Pick<Evaluation, 'revisions' | 'desired' | 'invalid'>): string {
  const parts = revisions.map(
    (r) =>
      `${r.metadata.name}|${r.spec.number}|${r.spec.hash}|${r.status?.completedAt ?? ''}|${ranWell(r) ? 1 : 0}|${invalid.has(r.metadata.name) ? 1 : 0}|${r.status?.isInvalid === true ? 1 : 0}|${r.spec.aborted === true ? 1 : 0}|${r.spec.paused === true ? 1 : 0}|${r.spec.retryOf ?? ''}`,
  );
  return `${desired.metadata.name}#${parts.join(',')}`;
}

/** Evaluation keys remembered (a pass evaluates one or a few desired revisions). */
const MAX_KEYS = 8;

/** Per node, the last verdict and the inputs it was made from. */
export class VerdictMemo implements VerdictCache {
  private readonly kept = new Map<string, Kept>();
  /** The revision objects of the last evaluation. */
  private revisionObjects: readonly NetworkConfigRevision[] = [];
  /** The evaluation keys of recent passes, each kept as one string object. */
  private readonly keys = new Map<string, string>();
  /** The last evaluation: its key, the names it was over (the same array while they are), its verdicts. */
  private last:
    { key: string; names: readonly string[]; verdicts: Verdict[]; at: Map<string, number> } | undefined;
  /** Nodes whose Node, NodeConfig or observation changed since the last evaluation. */
  private readonly changed = new Set<string>();
  /** Nodes whose kept verdict is made afresh every pass (reusable: no). */
  private readonly always = new Set<string>();
  /** Nodes whose kept verdict expires at its deadline. */
  private readonly timed = new Set<string>();
  /** No verdict of `timed` expires before this (at most the earliest deadline among them). */
  private nextUntil = Infinity;
  /** Verdicts reused and made afresh, since the start (for the bench and tests). */
  readonly counts = { reused: 0, made: 0 };

  /** Notes the nodes whose inputs changed in this pass; `gone` ones (neither a Node nor a NodeConfig) are forgotten. */
  note(changed: Iterable<string>, gone: (name: string) => boolean): void {
    for (const name of changed) {
      this.changed.add(name);
      if (!gone(name)) continue;
      this.kept.delete(name);
      this.always.delete(name);
      this.timed.delete(name);
    }
  }

  /**
   * Each node's verdict in one evaluation (one desired revision within one pass): the last
   * evaluation's where it was the same one over the same names, made again for the nodes changed
   * since and the verdicts that expired; else each node's kept verdict where its inputs are the same.
   */
  verdicts(e: Evaluation, nodes: EvaluationNodes): Verdict[] {
    const key = this.keyOf(e);
    const one = (name: string): Verdict =>
      this.one(nodes.subject(name), { key, mono: e.mono, make: nodes.make });
    this.repoint(e.revisions);
    const last = this.last;
    if (last && last.key === key && last.names === nodes.names) {
      const verdicts = last.verdicts.slice();
      const again = new Set(this.changed);
      for (const name of this.always) again.add(name);
      if (e.mono >= this.nextUntil) this.expired(e.mono, again);
      let looked = 0;
      for (const name of again) {
        const i = last.at.get(name);
        if (i === undefined) continue;
        verdicts[i] = one(name);
        looked++;
      }
      this.counts.reused += verdicts.length - looked;
      this.changed.clear();
      this.last = { ...last, verdicts };
      return verdicts;
    }
    const verdicts = nodes.names.map(one);
    this.changed.clear();
    this.last = { key, names: nodes.names, verdicts, at: new Map(nodes.names.map((n, i) => [n, i])) };
    return verdicts;
  }

  /** The kept verdict when its inputs are the same and it has not expired, else a new one (kept). */
  private one(
    subject: Subject,
    { key, mono, make }: { key: string; mono: number; make: (s: Subject) => Verdict },
  ): Verdict {
    const { name, node, nc, observation: obs } = subject;
    const k = this.kept.get(name);
    if (
      k &&
      k.key === key &&
      k.nc === nc &&
      k.obs === obs &&
      obs !== undefined &&
      mono < k.until &&
      k.node === nodeKey(node)
    ) {
      this.counts.reused++;
      // A new Node object that reads the same: the verdict shows the current one (in place, as in repoint).
      k.verdict.node = node;
      return k.verdict;
    }
    this.counts.made++;
    const verdict = make(subject);
    const until = reusable(verdict) ? (verdict.deadline ?? Infinity) : -Infinity;
    this.kept.set(name, { node: nodeKey(node), nc, obs, key, verdict, until });
    this.expiresAt(name, until);
    return verdict;
  }

  /** Files the node under the verdicts made afresh every pass, those with a deadline, or neither. */
  private expiresAt(name: string, until: number): void {
    if (until === -Infinity) this.always.add(name);
    else this.always.delete(name);
    if (until === -Infinity || until === Infinity) this.timed.delete(name);
    else {
      this.timed.add(name);
      this.nextUntil = Math.min(this.nextUntil, until);
    }
  }

  /** Adds the nodes of `timed` whose deadline has passed at `mono` to `again`; the earliest deadline of the others is the next to look at. */
  private expired(mono: number, again: Set<string>): void {
    let next = Infinity;
    for (const name of this.timed) {
      const until = this.kept.get(name)?.until ?? -Infinity;
      if (mono >= until) again.add(name);
      else next = Math.min(next, until);
    }
    this.nextUntil = next;
  }

  /** The evaluation's key: the same text as a kept verdict's key is that very string (one pointer compared per node). */
  private keyOf(e: Evaluation): string {
    const fresh = `${policyKey(e.policy)}#${revisionsKey(e)}`;
    const key = this.keys.get(fresh) ?? fresh;
    this.keys.set(key, key);
    if (this.keys.size > MAX_KEYS) this.keys.delete(this.keys.keys().next().value as string);
    return key;
  }

  /**
   * A kept verdict points at the revision objects of the pass that made it: when the revisions are
   * new objects (a status written), each kept verdict is pointed at today's (equal in everything it
   * read, by the key), so no old copy of a revision is held. In place: a kept verdict is held by
   * this memo alone (plan() hands on names and states, never a verdict), and a copy per node per
   * pass was most of the planner's garbage.
   */
  private repoint(revisions: readonly NetworkConfigRevision[]): void {
    const before = this.revisionObjects;
    if (before.length === revisions.length && revisions.every((r, i) => r === before[i])) return;
    this.revisionObjects = [...revisions];
    const byName = new Map(revisions.map((r) => [r.metadata.name, r]));
    for (const { verdict: v } of this.kept.values()) {
      if (v.assigned) v.assigned = byName.get(v.assigned.metadata.name) ?? v.assigned;
      if (v.target) v.target = byName.get(v.target.metadata.name) ?? v.target;
    }
  }

  /** Where the nodes filed by expiry differ from the kept verdicts' deadlines (the simulator checks it). */
  differences(): string[] {
    const out: string[] = [];
    for (const [name, { until }] of this.kept) {
      const always = until === -Infinity;
      const timed = !always && until !== Infinity;
      if (this.always.has(name) !== always || this.timed.has(name) !== timed)
        out.push(`verdict of ${name} (until ${until}) filed wrongly`);
      if (timed && until < this.nextUntil)
        out.push(`verdict of ${name} expires at ${until}, before ${this.nextUntil}`);
    }
    for (const name of [...this.always, ...this.timed])
      if (!this.kept.has(name)) out.push(`${name} filed by expiry without a kept verdict`);
    return out;
  }

  /** Forgets everything (a new leader starts afresh). */
  reset(): void {
    this.kept.clear();
    this.always.clear();
    this.timed.clear();
    this.nextUntil = Infinity;
    this.changed.clear();
    this.last = undefined;
    this.revisionObjects = [];
  }

  get size(): number {
    return this.kept.size;
  }
}

/** The input of a pass of the incremental planner: plan()'s without the observations, which it keeps. */
export type FleetInput = Omit<PlanInput, 'observations'>;

/** The planner the controller runs: observe() and `plan()` with what they work out per node kept between passes. */
export class IncrementalPlanner {
  readonly memo = new VerdictMemo();
  private fleet = new FleetView();
  private counted = new KeptRevisionCounts();
  private rows = new OpenRows();
  private order = new KeptStartOrder();

  /** What this planner observed and when, on the monotonic clock of its passes (observe.ts); updated in place by each pass. */
  get observations(): Observations {
    return this.fleet.observations;
  }

  /** Observes the Nodes and NodeConfigs at `input.mono`, then plans. */
  plan(input: FleetInput): Plan {
    const fleet = this.fleet;
    const changed = fleet.update(input.nodes, input.nodeConfigs, input.mono);
    this.counted.update(changed, fleet);
    this.rows.note(changed);
    this.order.note(changed, fleet.nodeByName);
    this.memo.note(changed, (name) => !fleet.nodeByName.has(name) && !fleet.ncByName.has(name));
    const lists = {
      referenced: this.counted.referenced,
      openRows: () => this.rows.nodeConfigs(fleet.ncByName, (name) => fleet.positionOf(name)),
    };
    return plan(
      { ...input, observations: fleet.observations },
      {
        fleet,
        memo: this.memo,
        counts: this.counted.counts,
        startOrder: (waveLabel) => this.order.indexes(fleet.names, fleet.nodeByName, waveLabel),
        ...(fleet.eachNameOnce ? { lists } : {}),
      },
    );
  }

  /**
   * Where what this planner keeps besides verdicts and observations differs from what the last
   * pass's lists give afresh (the simulator checks it after every pass): the start order, the
   * verdicts filed by expiry, the referenced revision hashes, and the NodeConfigs whose row labels
   * are looked at.
   */
  keptDifferences(nodeConfigs: readonly NodeConfig[]): string[] {
    const order = [
      ...this.order.differences(this.fleet.names, this.fleet.nodeByName),
      ...this.memo.differences(),
    ];
    if (!this.fleet.eachNameOnce) return order;
    return [...order, ...this.counted.referencedDiff(nodeConfigs), ...this.rows.missing(nodeConfigs)];
  }

  /** Forgets every observation and kept verdict: a new leader's timers start afresh (observe.ts). */
  reset(): void {
    this.fleet = new FleetView();
    this.counted = new KeptRevisionCounts();
    this.rows = new OpenRows();
    this.order = new KeptStartOrder();
    this.memo.reset();
  }
}
