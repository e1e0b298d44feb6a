/** What the planner reads from a NodeConfig, parsed once per object (informer objects are immutable). */
import {
  AGENT_MISCONFIGURED_REASON,
  AGENT_READY_CONDITION,
  ASSIGNED_AT_ANNOTATION,
  MOVE_ANNOTATION,
  MOVE_KINDS,
  NODE_UID_ANNOTATION,
  RAN_BEFORE_ANNOTATION,
  REVISION_NUMBER_LABEL,
  SPEC_HASH_ANNOTATION,
  hashConfig,
  reportsOnSpec,
  type MoveKind,
  type NodeConfig,
} from '@nodenet/api';

/** The one rule, shared with kubectl nodenet (@nodenet/api node-placement.ts). */
export { reportsOnSpec };

/** How many times in a row the configurator re-assigned the same revision (Interrupted, failed rollback). */
export const ATTEMPT_ANNOTATION = 'network.nodenet.io/attempt';

export interface NodeConfigFacts {
  /** The assignment annotation is present (written by a configurator). */
  assigned: boolean;
  /** Text of the assignment annotation, for messages only. */
  assignedAtText: string | undefined;
  about: boolean;
  /** Hash of the spec: the annotation when present, else computed. */
  specHash: string;
  move: MoveKind;
  number: number | undefined;
  /** Re-assignments of this revision so far (0: the first assignment). */
  attempt: number;
  /** The newest revision the host ran before this assignment (RAN_BEFORE_ANNOTATION); undefined: unknown. */
  ranBefore: number | undefined;
  /** The agent's self-check failed (condition AgentReady=False, AgentMisconfigured): its message. */
  misconfigured: string | undefined;
  /** The uid of the Node it was written for (NODE_UID_ANNOTATION, else the Node owner reference); undefined: unknown. */
  nodeUid: string | undefined;
}

const cache = new WeakMap<NodeConfig, NodeConfigFacts>();

const specHashes = new WeakMap<NodeConfig['spec'], string>();
/** The spec hash as the configurator records it: sha256 of the spec's canonical JSON (memoized per object). */
export function nodeSpecHash(spec: NodeConfig['spec']): string {
  let h = specHashes.get(spec);
  if (h === undefined) specHashes.set(spec, (h = hashConfig(spec)));
  return h;
}

/**
 * The last NodeConfig looked up and its facts: one verdict asks for the same NodeConfig's facts
 * several times in a row (classify, assignedRevision, targetFor, uniform), and a lookup in a
 * WeakMap of every NodeConfig object costs more than this compare.
 */
let lastNc: NodeConfig | undefined;
let lastFacts: NodeConfigFacts | undefined;

export function factsOf(nc: NodeConfig): NodeConfigFacts {
  if (nc === lastNc) return lastFacts as NodeConfigFacts;
  const f = factsOnce(nc);
  lastNc = nc;
  lastFacts = f;
  return f;
}

function factsOnce(nc: NodeConfig): NodeConfigFacts {
  let f = cache.get(nc);
  if (!f) {
    const a = nc.metadata.annotations ?? {};
    const move = a[MOVE_ANNOTATION];
    const number = Number(nc.metadata.labels?.[REVISION_NUMBER_LABEL]);
    f = {
      assigned: a[ASSIGNED_AT_ANNOTATION] !== undefined,
      assignedAtText: a[ASSIGNED_AT_ANNOTATION],
      about: reportsOnSpec(nc),
      specHash: a[SPEC_HASH_ANNOTATION] ?? nodeSpecHash(nc.spec),
      // Unknown or missing (an older configurator): counted as forward, the careful reading.
      move: (MOVE_KINDS as readonly string[]).includes(move ?? '') ? (move as MoveKind) : 'forward',
      number: Number.isInteger(number) && number >= 0 ? number : undefined,
      attempt: attemptOf(a[ATTEMPT_ANNOTATION]),
      ranBefore: numberOf(a[RAN_BEFORE_ANNOTATION]),
      misconfigured: nc.status?.conditions?.find(
        (c) =>
          c.type === AGENT_READY_CONDITION && c.status === 'False' && c.reason === AGENT_MISCONFIGURED_REASON,
      )?.message,
      nodeUid: a[NODE_UID_ANNOTATION] ?? nc.metadata.ownerReferences?.find((r) => r.kind === 'Node')?.uid,
    };
    cache.set(nc, f);
  }
  return f;
}

function numberOf(text: string | undefined): number | undefined {
  const n = Number(text);
  return text !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

function attemptOf(text: string | undefined): number {
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 0 ? Math.min(n, 1000) : 0;
}

/**
 * Whether `nc` was written for another Node object than `node` (issue 35): the Node was deleted and
 * re-created under the same name while its NodeConfig survived. Its status is the old node's; the
 * new node has not answered anything. Unknown uids (an older configurator, a hand-written object)
 * are taken as the same node.
 */
export function writtenForAnotherNode(
  node: { uid?: string } | undefined,
  nc: NodeConfig | undefined,
): boolean {
  if (node?.uid === undefined || nc === undefined) return false;
  const was = factsOf(nc).nodeUid;
  return was !== undefined && was !== node.uid;
}
