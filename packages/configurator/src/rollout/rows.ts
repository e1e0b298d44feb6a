/**
 * Honest `kubectl get nc` rows (pure). A printer column can only show a field, and the agent's
 * status may be a report about an older spec (the node was handed a new revision and has not
 * answered yet). An agent that names the revision numbers in its status (`revisionNumber`, the one
 * its report answers, and `appliedRevisionNumber`, docs/agent-status.md) makes the row from status
 * alone: the configurator writes no label after its report. For an older agent the configurator
 * keeps two labels that it derives from the NodeConfig: the report (`pending` until the agent
 * answers the current spec) and the number of the revision on the host. Labels are metadata: the
 * agent stays the only writer of NodeConfig status (invariant 1).
 */
import {
  APPLIED_NUMBER_LABEL,
  REPORT_LABEL,
  REVISION_NUMBER_LABEL,
  type FailedNode,
  type NetworkConfigRevision,
  type NodeConfig,
  shortHash,
} from '@nodenet/api';
import { reportsOnSpec } from './facts.js';
import type { Action } from './types.js';

/** The report label before the agent has answered the current spec. */
export const PENDING_REPORT = 'pending';

/** Whether the NodeConfig's agent names the revision numbers in its status (its row is read from there). */
export const rowFromStatus = (nc: NodeConfig): boolean => nc.status?.revisionNumber !== undefined;

/** Whether an older agent reported (without the revision numbers): its row is kept in labels. */
const reportedWithoutNumbers = (nc: NodeConfig): boolean =>
  nc.status?.configStatus !== undefined && !rowFromStatus(nc);

const ROW_LABELS = [REPORT_LABEL, APPLIED_NUMBER_LABEL] as const;

/**
 * The row labels of a move (merged into the assignment write): `pending` for an older agent's node,
 * else the removal of row labels an older agent left (none: nothing to write).
 */
export function rowLabelsOnMove(existing: NodeConfig | undefined): Record<string, string | null> {
  if (!existing) return {};
  if (reportedWithoutNumbers(existing)) return { [REPORT_LABEL]: PENDING_REPORT };
  const have = existing.metadata.labels ?? {};
  return Object.fromEntries(ROW_LABELS.filter((k) => have[k] !== undefined).map((k) => [k, null]));
}

/**
 * The row labels a NodeConfig should carry (null: no label); undefined: none to keep (no report yet,
 * or the row comes from status, in which case an older agent's labels go).
 */
function wantedRowLabels(
  nc: NodeConfig,
  revisions: readonly NetworkConfigRevision[],
): Record<string, string | null> | undefined {
  if (rowFromStatus(nc)) return { [REPORT_LABEL]: null, [APPLIED_NUMBER_LABEL]: null };
  return reportedWithoutNumbers(nc) ? rowLabels(nc, revisions) : undefined;
}

/** The row labels a NodeConfig of an older agent should carry (null: no label). */
export function rowLabels(
  nc: NodeConfig,
  revisions: readonly NetworkConfigRevision[],
): Record<string, string | null> {
  const st = nc.status;
  const report = st?.configStatus && reportsOnSpec(nc) ? st.configStatus : PENDING_REPORT;
  return { [REPORT_LABEL]: report, [APPLIED_NUMBER_LABEL]: appliedNumber(nc, revisions) };
}

/**
 * Number of the revision the agent says is on the host: the NodeConfig's own number when it is the
 * spec's revision, else the newest revision with that hash; its hash prefix when no revision has it
 * any more (deleted); null before the agent applied anything.
 */
function appliedNumber(nc: NodeConfig, revisions: readonly NetworkConfigRevision[]): string | null {
  const h = nc.status?.lastAppliedRevision;
  if (!h) return null;
  const own = nc.metadata.labels?.[REVISION_NUMBER_LABEL];
  if (h === nc.spec.revision && own) return own;
  const numbers = revisions.filter((r) => r.spec.hash === h).map((r) => r.spec.number);
  return numbers.length ? String(Math.max(...numbers)) : /^[0-9a-f]{10}/.test(h) ? shortHash(h) : null;
}

/**
 * NodeConfigs whose row labels were found right and cannot go wrong by a revision change (the host
 * runs nothing yet, or the NodeConfig's own revision): each informer object is looked at once.
 */
const settledRows = new WeakSet<NodeConfig>();
const ownNumberApplies = (nc: NodeConfig): boolean =>
  !nc.status?.lastAppliedRevision ||
  (nc.status.lastAppliedRevision === nc.spec.revision &&
    nc.metadata.labels?.[REVISION_NUMBER_LABEL] !== undefined);

/**
 * The NodeConfigs rowLabelActions has to look at, kept by the incremental planner: every name
 * whose NodeConfig is not settled. A name is opened when its objects change, and closed once its
 * NodeConfig is settled or gone; a settled NodeConfig has no label write, so the writes for the
 * open ones are the writes for all.
 */
export class OpenRows {
  private readonly open = new Set<string>();

  /** The nodes whose Node or NodeConfig changed (came, went, or was replaced). */
  note(changed: Iterable<string>): void {
    for (const name of changed) this.open.add(name);
  }

  /** The open NodeConfigs in the order of the list, by `position` (their index in it). */
  nodeConfigs(ncByName: ReadonlyMap<string, NodeConfig>, position: (name: string) => number): NodeConfig[] {
    const out: { at: number; nc: NodeConfig }[] = [];
    for (const name of this.open) {
      const nc = ncByName.get(name);
      if (nc === undefined || settledRows.has(nc)) this.open.delete(name);
      else out.push({ at: position(name), nc });
    }
    return out.sort((a, b) => a.at - b.at).map((o) => o.nc);
  }

  /** The NodeConfigs not settled whose name is not open (tests: none may be). */
  missing(nodeConfigs: readonly NodeConfig[]): string[] {
    return nodeConfigs
      .filter((nc) => !settledRows.has(nc) && !this.open.has(nc.metadata.name))
      .map((nc) => `row of ${nc.metadata.name} not open`);
  }
}

/** Label writes for the NodeConfigs whose row labels differ (those assigned in this pass excepted). */
export function rowLabelActions(
  nodeConfigs: readonly NodeConfig[],
  revisions: readonly NetworkConfigRevision[],
  skip: ReadonlySet<string>,
): Extract<Action, { type: 'labelNodeConfig' }>[] {
  const out: Extract<Action, { type: 'labelNodeConfig' }>[] = [];
  for (const nc of nodeConfigs) {
    if (settledRows.has(nc) || skip.has(nc.metadata.name) || nc.metadata.deletionTimestamp) continue;
    const want = wantedRowLabels(nc, revisions);
    if (!want) continue;
    const have = nc.metadata.labels ?? {};
    const diff = Object.entries(want).filter(([k, v]) => (have[k] ?? null) !== v);
    if (diff.length)
      out.push({ type: 'labelNodeConfig', name: nc.metadata.name, labels: Object.fromEntries(diff) });
    else if (rowFromStatus(nc) || ownNumberApplies(nc)) settledRows.add(nc);
  }
  return out;
}

/**
 * Whether a failure is a timeout the configurator decided on (the messages classify.ts writes): no
 * agent reported it, so it is recorded as an Event on the NodeConfig as well.
 */
export const isTimeoutFailure = (message: string): boolean =>
  /^(preconfig timeout|config timeout|NotReady for|Node gone for)\b/.test(message);

/** Failed or degraded nodes that newly timed out between two statuses of a revision. */
export function newTimeouts(
  before: readonly FailedNode[] | undefined,
  after: readonly FailedNode[] | undefined,
): FailedNode[] {
  const seen = new Set((before ?? []).map((f) => `${f.node}|${f.message}`));
  return (after ?? []).filter((f) => isTimeoutFailure(f.message) && !seen.has(`${f.node}|${f.message}`));
}

/**
 * Why the NodeConfig's status is not taken as the agent's answer to its current spec (undefined:
 * it is taken, or there is none). The contract is docs/agent-status.md: every condition the agent
 * writes carries the `observedGeneration` it answers.
 */
export function whyReportIgnored(nc: NodeConfig): string | undefined {
  const st = nc.status;
  if (!st || st.configStatus === undefined || reportsOnSpec(nc)) return undefined;
  const gens = (st.conditions ?? [])
    .map((c) => c.observedGeneration)
    .filter((g): g is number => g !== undefined);
  if (gens.length === 0)
    return (
      "no condition carries observedGeneration, and lastAppliedRevision is not the spec's revision " +
      '(see docs/agent-status.md)'
    );
  return `it answers generation ${Math.max(...gens)}, the spec is generation ${nc.metadata.generation ?? '?'} (not answered yet)`;
}
