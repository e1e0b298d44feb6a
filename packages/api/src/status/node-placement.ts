/**
 * Where a node is and why (pure): the one answer to "why is node X not on the latest revision?",
 * shared by `kubectl nodenet nodes`, `kubectl nodenet why` and `status`. Revisions are identified by
 * number (the NodeConfig's labels), never by content hash: two revisions may share content (a retry,
 * a revert), and a hash would name the wrong one.
 */
import {
  AGENT_MISCONFIGURED_REASON,
  AGENT_READY_CONDITION,
  APPLIED_NUMBER_LABEL,
  ASSIGNED_AT_ANNOTATION,
  DESIRED_LABEL,
  MOVE_ANNOTATION,
  NODE_AGENT_READY_CONDITION,
  REVISION_NUMBER_LABEL,
} from '../names/kubernetes.js';
import { findCondition } from './conditions.js';
import type { NetworkConfigRevision, NodeConfig } from '../resources/objects.js';

/** The parts of a Node this reads (structural, so @nodenet/api needs no Kubernetes client types). */
export interface NodeLike {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { taints?: readonly { key: string; effect?: string }[] };
  status?: {
    conditions?: readonly {
      type: string;
      status: string;
      reason?: string;
      message?: string;
      lastTransitionTime?: string;
    }[];
  };
}

/** Taints whose key is in nodenet's domain: the agent removes them after its first good apply. */
export const STARTUP_TAINT_PREFIX = 'node.nodenet.io/';

/**
 * How the configurator words a node whose assignment write the API server refuses (issue #37): in
 * the desired revision's `status.degradedNodes`, after `unavailable: `, with the API's error.
 */
export const ASSIGNMENT_REFUSED = 'assignment write refused by the API server';

/** What the agent's status says about the NodeConfig's current spec. */
export type AgentReport = 'none' | 'pending' | 'provisioning' | 'confirming' | 'provisioned' | 'invalid';

export type PlacementState =
  /** On the desired revision, applied and confirmed. */
  | 'up-to-date'
  /** Handed the desired revision; the agent works on it (or has not answered yet). */
  | 'rolling-out'
  /** Behind, and will be handed the desired revision when a slot frees up. */
  | 'queued'
  /** Behind, and will not move while a pause or a hold lasts. */
  | 'held'
  /** Carries an invalid revision and is being moved back. */
  | 'rolling-back'
  /** Its agent cannot take a change now (NotReady, misconfigured, start-up taint, gone). */
  | 'unavailable'
  /** Its agent reported the revision it carries as invalid. */
  | 'failed'
  /** The revision failed and the agent could not restore the previous one: the host needs a person. */
  | 'restore-failed'
  /** No NodeConfig: not selected, or not reached yet. */
  | 'no-config';

export interface RevisionRef {
  number: number;
  name: string;
}

export interface NodePlacement {
  node: string;
  /** The revision every selected node is moved to (the fleet's desired revision). */
  desired?: RevisionRef;
  /** The revision the node's NodeConfig carries (by its number label). */
  assigned?: RevisionRef;
  /** Number of the revision the agent reports on the host. */
  applied?: number;
  report: AgentReport;
  state: PlacementState;
  /** One line: why the node is where it is. */
  why: string;
  /** One line: what happens next, and what a person can do. */
  next: string;
  /** The newest invalid revision this node was rolled back from, with its failure. */
  rolledBackFrom?: { revision: RevisionRef; at?: string; message: string };
}

export interface PlacementInput {
  node: string;
  nodeObject: NodeLike | undefined;
  nodeConfig: NodeConfig | undefined;
  /** Every revision, any order. */
  revisions: readonly NetworkConfigRevision[];
  /** The RolloutPolicy `default` has `spec.paused`. */
  fleetPaused?: boolean;
}

/**
 * Whether the agent's status answers the NodeConfig's current spec: one of its conditions names the
 * spec's generation (`observedGeneration`); without generations, `lastAppliedRevision` equal to the
 * spec's revision counts (docs/agent-status.md).
 */
export function reportsOnSpec(nc: NodeConfig): boolean {
  const st = nc.status;
  if (!st) return false;
  const gens = (st.conditions ?? [])
    .map((c) => c.observedGeneration)
    .filter((g): g is number => g !== undefined);
  if (gens.length > 0 && nc.metadata.generation !== undefined) return gens.includes(nc.metadata.generation);
  return st.lastAppliedRevision === nc.spec.revision;
}

export function agentReport(nc: NodeConfig | undefined): AgentReport {
  if (!nc) return 'none';
  const st = nc.status;
  if (!st || !reportsOnSpec(nc)) return 'pending';
  switch (st.configStatus) {
    case 'provisioned':
      return st.lastAppliedRevision === nc.spec.revision ? 'provisioned' : 'provisioning';
    case 'invalid':
      return 'invalid';
    case 'provisioning':
      return findCondition(st.conditions, 'Confirming')?.status === 'True' ||
        findCondition(st.conditions, 'Progressing')?.reason === 'Confirming'
        ? 'confirming'
        : 'provisioning';
    case undefined:
      return 'pending';
  }
}

const ref = (r: NetworkConfigRevision): RevisionRef => ({ number: r.spec.number, name: r.metadata.name });
const isInvalid = (r: NetworkConfigRevision): boolean => r.status?.isInvalid === true;

/** The desired revision: the one labelled so by the configurator, else the newest valid one. */
export function desiredRevision(
  revisions: readonly NetworkConfigRevision[],
): NetworkConfigRevision | undefined {
  const labelled = revisions.find((r) => r.metadata.labels?.[DESIRED_LABEL] === 'true' && !isInvalid(r));
  if (labelled) return labelled;
  return [...revisions].sort((a, b) => b.spec.number - a.spec.number).find((r) => !isInvalid(r));
}

/** The agent's own message when its self-check says it is misconfigured (AgentReady False), else undefined. */
export function agentMisconfigured(nc: NodeConfig | undefined): string | undefined {
  const selfCheck = findCondition(nc?.status?.conditions, AGENT_READY_CONDITION);
  return selfCheck?.status === 'False' && selfCheck.reason === AGENT_MISCONFIGURED_REASON
    ? (selfCheck.message ?? '')
    : undefined;
}

/** Why a node cannot take a change now, or undefined when it can. */
export function unavailableReason(
  node: NodeLike | undefined,
  nc: NodeConfig | undefined,
): string | undefined {
  if (!node) return 'its Node object is gone';
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready && ready.status !== 'True')
    return `NotReady${ready.lastTransitionTime ? ` since ${ready.lastTransitionTime}` : ''}${ready.message ? ` (${ready.message})` : ''}`;
  const misconfigured = agentMisconfigured(nc);
  if (misconfigured !== undefined) return `agent misconfigured: ${misconfigured}`.trimEnd();
  const onNode = node.status?.conditions?.find((c) => c.type === NODE_AGENT_READY_CONDITION);
  if (onNode?.status === 'False')
    return `agent not ready (${onNode.reason ?? 'no reason'}): ${onNode.message ?? ''}`.trimEnd();
  const taint = node.spec?.taints?.find((t) => t.key.startsWith(STARTUP_TAINT_PREFIX));
  if (taint) return `start-up taint ${taint.key} present: its agent has not finished its first apply`;
  return undefined;
}

function rolledBackFrom(
  node: string,
  revisions: readonly NetworkConfigRevision[],
): NodePlacement['rolledBackFrom'] {
  const failed = [...revisions]
    .filter(isInvalid)
    .sort((a, b) => b.spec.number - a.spec.number)
    .flatMap((r) => {
      const f = r.status?.failedNodes?.find((x) => x.node === node);
      return f ? [{ revision: ref(r), at: f.at, message: firstLine(f.message) }] : [];
    });
  return failed[0];
}

/** The number of the revision a NodeConfig carries (the configurator's label, written with its spec). */
export function labelledRevisionNumber(nc: NodeConfig): number | undefined {
  const n = Number(nc.metadata.labels?.[REVISION_NUMBER_LABEL]);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * The revision on the host: the number the agent reports with it; from an older agent, the
 * configurator's label; without either, the one revision whose hash the agent reports, and nothing
 * when several share that content.
 */
export function appliedNumber(
  nc: NodeConfig | undefined,
  revisions: readonly NetworkConfigRevision[],
): number | undefined {
  const reported = nc?.status?.appliedRevisionNumber;
  if (reported !== undefined && nc?.status?.lastAppliedRevision !== undefined) return reported;
  const labelled = Number(nc?.metadata.labels?.[APPLIED_NUMBER_LABEL]);
  if (Number.isInteger(labelled) && labelled > 0) return labelled;
  const hash = nc?.status?.lastAppliedRevision;
  const same = hash === undefined ? [] : revisions.filter((r) => r.spec.hash === hash);
  return same.length === 1 ? same[0]!.spec.number : undefined;
}

const firstLine = (s: string): string => s.split('\n')[0] ?? '';

/** What the answer for one node with a NodeConfig is built from. */
interface Placing {
  nc: NodeConfig;
  desiredRev: NetworkConfigRevision | undefined;
  assignedRev: NetworkConfigRevision | undefined;
  report: AgentReport;
  back: NodePlacement['rolledBackFrom'];
  /** `carries <revision>`: how most answers start. */
  where: string;
  /** The desired revision as people read it: name and number. */
  desired: string;
  place: (state: PlacementState, why: string, next: string) => NodePlacement;
}

export function nodePlacement(input: PlacementInput): NodePlacement {
  const { node, nodeObject, nodeConfig: nc, revisions } = input;
  const desiredRev = desiredRevision(revisions);
  const byNumber = new Map(revisions.map((r) => [r.spec.number, r]));
  const labelled = Number(nc?.metadata.labels?.[REVISION_NUMBER_LABEL]);
  const assignedRev = Number.isInteger(labelled) ? byNumber.get(labelled) : undefined;
  const applied = appliedNumber(nc, revisions);
  const report = agentReport(nc);
  // Only a rollback to the revision it still carries is news; a later move makes it history.
  const failedOn = rolledBackFrom(node, revisions);
  const back =
    failedOn && assignedRev && failedOn.revision.number > assignedRev.spec.number ? failedOn : undefined;
  const base = {
    node,
    ...(desiredRev ? { desired: ref(desiredRev) } : {}),
    ...(assignedRev ? { assigned: ref(assignedRev) } : {}),
    ...(applied !== undefined ? { applied } : {}),
    report,
    ...(back ? { rolledBackFrom: back } : {}),
  };
  const place = (state: PlacementState, why: string, next: string): NodePlacement => ({
    ...base,
    state,
    why,
    next,
  });
  // The configurator could not write this node's NodeConfig: the one answer that is not on it.
  const refused = desiredRev?.status?.degradedNodes?.find(
    (d) => d.node === node && d.message.startsWith(`unavailable: ${ASSIGNMENT_REFUSED}`),
  );
  if (refused)
    return place(
      'unavailable',
      `${nc ? (assignedRev ? `carries ${assignedRev.metadata.name}; ` : '') : 'no NodeConfig; '}${refused.message}`,
      'the configurator tries the write again after a backoff; it holds no slot and counts against no revision meanwhile. Fix what the API server refuses (its size, a right, the API server)',
    );
  if (!nc)
    return place(
      'no-config',
      'no NodeConfig: the configurator has not handed this node any revision',
      nodeObject
        ? 'it is handed the desired revision when the configurator reaches it; if it never is, check that --node-selector selects it'
        : 'nothing: there is no Node of this name',
    );
  const where = assignedRev
    ? `carries ${assignedRev.metadata.name}`
    : 'carries a revision that no longer exists';
  const desired = desiredRev ? `${desiredRev.metadata.name} (number ${desiredRev.spec.number})` : 'none';
  const p: Placing = { nc, desiredRev, assignedRev, report, back, where, desired, place };
  return (
    placeStuck(p, unavailableReason(nodeObject, nc)) ??
    placeOnDesired(p) ??
    placeBehind(p, input.fleetPaused === true)
  );
}

/** A node that cannot move: unavailable, half-restored, or on an invalid revision. */
function placeStuck(p: Placing, unavailable: string | undefined): NodePlacement | undefined {
  const { nc, where, place } = p;
  if (unavailable)
    return place(
      'unavailable',
      `${where}; unavailable: ${unavailable}`,
      'no change is handed to it while it is unavailable, and it counts against no revision; it catches up when its agent answers again',
    );
  if (p.report === 'invalid' && nc.status?.failureCause === 'RestoreFailed')
    return place(
      'restore-failed',
      `${where}; the change failed and restoring the previous config failed too: ${firstLine(nc.status.message ?? '')}`,
      'the host may be half-applied: look at the node (its agent log, NodenetReady condition); the agent keeps retrying the restore',
    );
  if (p.assignedRev && isInvalid(p.assignedRev))
    return place(
      'rolling-back',
      `${where}, which is invalid`,
      p.desiredRev
        ? `it is moved back to ${p.desired} first; rollbacks are never paused or held`
        : 'no valid revision exists to move back to',
    );
  return undefined;
}

/** A node handed the desired revision: done, failed, or on its way. */
function placeOnDesired(p: Placing): NodePlacement | undefined {
  const { nc, report, desired: d, place } = p;
  if (!p.desiredRev || p.assignedRev?.spec.number !== p.desiredRev.spec.number) return undefined;
  if (report === 'provisioned')
    return place(
      'up-to-date',
      p.back ? `on ${d}, rolled back from ${p.back.revision.name}` : `on ${d}, applied and confirmed`,
      'nothing',
    );
  if (report === 'invalid')
    return place(
      'failed',
      `reported ${d} invalid: ${firstLine(nc.status?.message ?? '')}`,
      'the configurator counts it against the revision (more than --max-failures halts it and rolls its nodes back)',
    );
  const since = nc.metadata.annotations?.[ASSIGNED_AT_ANNOTATION];
  return place(
    'rolling-out',
    `handed ${d}${since ? ` at ${since}` : ''} (${nc.metadata.annotations?.[MOVE_ANNOTATION] ?? 'forward'} move); agent: ${report}`,
    report === 'confirming'
      ? 'the agent reports provisioned when its confirm window ends with every check passing'
      : 'the agent reports when it has applied and checked the change',
  );
}

/** A node on an older revision: held by a pause or hold, or waiting for a slot. */
function placeBehind(p: Placing, fleetPaused: boolean): NodePlacement {
  const { where, place } = p;
  if (!p.desiredRev) return place('up-to-date', `${where}; no desired revision exists`, 'nothing');
  const behind = `${where}, behind ${p.desired}`;
  const hold = holdOf(p.desiredRev, fleetPaused);
  if (hold) return place('held', `${behind}; ${hold}`, 'it moves when the pause or hold ends');
  return place('queued', behind, 'it is handed the desired revision when a slot frees up (--update-limit)');
}

/** Why the desired revision moves no node forward now, from what the configurator wrote. */
function holdOf(rev: NetworkConfigRevision, fleetPaused: boolean): string | undefined {
  if (fleetPaused) return 'the fleet is paused (RolloutPolicy default, spec.paused)';
  if (rev.spec.paused) return `${rev.metadata.name} is paused (spec.paused)`;
  const progressing = findCondition(rev.status?.conditions, 'Progressing');
  if (progressing && /^Held/.test(progressing.reason))
    return `the rollout is held (${progressing.reason}): ${progressing.message}`;
  return undefined;
}
