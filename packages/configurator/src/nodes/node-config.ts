/** The NodeConfig the configurator writes when it hands a node a revision (pure). */
import {
  API_VERSION,
  ASSIGNED_AT_ANNOTATION,
  MOVE_ANNOTATION,
  NODE_UID_ANNOTATION,
  RAN_BEFORE_ANNOTATION,
  REVISION_NUMBER_LABEL,
  SPEC_HASH_ANNOTATION,
  type MoveKind,
  type NetworkConfigRevision,
  type NodeConfig,
  type NodeConfigSpec,
} from '@nodenet/api';
import type { Node } from '@nodenet/kube';
import { rfc3339Millis } from '@nodenet/api';
import { ATTEMPT_ANNOTATION, nodeSpecHash } from '../rollout/index.js';

/** Which configurator instance made an assignment (for audits and the two-leader test). */
export const ASSIGNED_BY_ANNOTATION = 'network.nodenet.io/assigned-by';

export interface Assignment {
  /** The node's spec for the revision (a function of the revision and the node's labels). */
  spec: NodeConfigSpec;
  move: MoveKind;
  /** A re-assignment of the same revision: its number (absent on a first assignment). */
  attempt?: number;
  /** The newest revision the node's host ran before this assignment (absent: none known). */
  ranBefore?: number;
  /** Wall clock, written for people (`assigned-at`); never compared with anything. */
  now: number;
  identity: string;
}

/**
 * The NodeConfig of `node` for `revision`: spec, the assignment annotations, the revision number
 * label, and owner references to the Node and the revision (garbage collection of either removes it).
 */
export function nodeConfigFor(revision: NetworkConfigRevision, node: Node, a: Assignment): NodeConfig {
  return {
    apiVersion: API_VERSION,
    kind: 'NodeConfig',
    metadata: {
      name: node.metadata.name,
      annotations: {
        [ASSIGNED_AT_ANNOTATION]: rfc3339Millis(a.now),
        [ASSIGNED_BY_ANNOTATION]: a.identity,
        [SPEC_HASH_ANNOTATION]: nodeSpecHash(a.spec),
        [MOVE_ANNOTATION]: a.move,
        // Null removes a previous attempt count (merge patch): a new revision starts at 0.
        ...(a.attempt !== undefined ? { [ATTEMPT_ANNOTATION]: String(a.attempt) } : {}),
        ...(a.ranBefore !== undefined ? { [RAN_BEFORE_ANNOTATION]: String(a.ranBefore) } : {}),
        ...(node.metadata.uid ? { [NODE_UID_ANNOTATION]: node.metadata.uid } : {}),
      },
      // The row labels of an older agent's node are the assignment write's too (rollout/rows.ts).
      labels: { [REVISION_NUMBER_LABEL]: String(revision.spec.number) },
      ownerReferences: [
        ...(node.metadata.uid
          ? [{ apiVersion: 'v1', kind: 'Node', name: node.metadata.name, uid: node.metadata.uid }]
          : []),
        ...(revision.metadata.uid
          ? [
              {
                apiVersion: revision.apiVersion ?? API_VERSION,
                kind: 'NetworkConfigRevision',
                name: revision.metadata.name,
                uid: revision.metadata.uid,
              },
            ]
          : []),
      ],
    },
    spec: a.spec,
  };
}

/**
 * The annotations of the last assignment that this one does not set, as null for a merge patch: a
 * new assignment starts its attempts afresh, and a ran-before nobody knows now is not kept.
 */
export function staleAnnotations(existing: NodeConfig, want: NodeConfig): Record<string, null> {
  const had = existing.metadata.annotations ?? {};
  const now = want.metadata.annotations ?? {};
  return Object.fromEntries(
    [ATTEMPT_ANNOTATION, RAN_BEFORE_ANNOTATION]
      .filter((k) => had[k] !== undefined && now[k] === undefined)
      .map((k) => [k, null]),
  );
}

/** NodeConfig spec fields that are absent when nothing selects the node. */
const OPTIONAL_SPEC_FIELDS = ['agent', 'bgpPeering'] as const;

/**
 * The spec as a merge patch: an optional field the new spec leaves out is removed with null, or the
 * node would keep the old one (a rollback to a revision without an AgentConfiguration would keep the
 * bad template). Not taken from the cached NodeConfig: its summary drops the spec (node-config-summary.ts).
 */
export function specPatch(spec: NodeConfig['spec']): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...spec };
  for (const key of OPTIONAL_SPEC_FIELDS) if (!(key in spec)) patch[key] = null;
  return patch;
}
