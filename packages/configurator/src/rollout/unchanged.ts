/**
 * Unchanged nodes move for free (issue 26). A revision that leaves a node's host config as it is
 * (its per-node spec equal apart from the revision reference) changes nothing on the host: the
 * agent sees no netlink operation and an unchanged FRR file, reports at once and opens no confirm
 * window. Such a node moves without a slot and without a soak, and its move is recorded as
 * `unchanged`: never counted against the revision (a failure on it is reported only), so it cannot
 * spend the change's failure budget either. The nodes the change touches roll out as before.
 */
import { hashConfig, type NetworkConfigRevision, type NodeConfig, type NodeConfigSpec } from '@nodenet/api';
import type { Verdict } from './classify.js';
import { factsOf } from './facts.js';
import type { NodeInfo, PlanInput } from './types.js';

const contentHashes = new WeakMap<NodeConfigSpec, string>();

/** sha256 of a spec without its revision reference: what the host runs (memoized per spec object). */
export function specContentHash(spec: NodeConfigSpec): string {
  let h = contentHashes.get(spec);
  if (h === undefined) contentHashes.set(spec, (h = hashConfig({ ...spec, revision: '' })));
  return h;
}

/** The host runs the node's current assignment: its agent applied it and said so. */
const runsAssignment = (nc: NodeConfig): boolean =>
  nc.status?.configStatus === 'provisioned' &&
  nc.status.lastAppliedRevision === nc.spec.revision &&
  nc.status.failureCause === undefined;

/**
 * Whether moving the node to `target` leaves its host config unchanged: it waits for a move (not a
 * re-assignment after a fault), its host runs its current assignment, and the target's spec for it
 * has the same content. A retry (the same configuration as the node's invalid assignment) is a new
 * change and never free. `contentHash` is the target's per-node content hash (undefined: not known,
 * the node moves as any other).
 */
export function movesUnchanged(
  v: Verdict,
  target: NetworkConfigRevision,
  invalid: ReadonlySet<string>,
  hashes: Pick<PlanInput, 'contentHash' | 'specHash'>,
): boolean {
  const { contentHash } = hashes;
  if (v.state !== 'outdated' || v.reassign !== undefined || !v.nc || !v.node || !contentHash) return false;
  if (!runsAssignment(v.nc)) return false;
  const offInvalid = v.assigned !== undefined && invalid.has(v.assigned.metadata.name);
  if (offInvalid && v.nc.spec.revision === target.spec.hash) return false;
  const current = currentContent(v.nc, v.assigned, v.node, hashes);
  return current !== undefined && current === contentHash(target, v.node);
}

/**
 * The content the node's host runs. The configurator's cache keeps a summary of each NodeConfig
 * without its spec lists (nodes/node-config-summary.ts), so the content is taken from the assigned
 * revision, when the NodeConfig's spec is exactly what the configurator makes of that revision for
 * the node as labelled now (its spec hash says so); otherwise it is not known and the node moves as
 * any other. Without `specHash` (tests of the rule alone) the NodeConfig's own spec is read.
 */
function currentContent(
  nc: NodeConfig,
  assigned: NetworkConfigRevision | undefined,
  node: NodeInfo,
  { contentHash, specHash }: Pick<PlanInput, 'contentHash' | 'specHash'>,
): string | undefined {
  if (!specHash) return specContentHash(nc.spec);
  if (!assigned || !contentHash || factsOf(nc).specHash !== specHash(assigned, node)) return undefined;
  return contentHash(assigned, node);
}
