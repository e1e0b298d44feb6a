/**
 * The revision numbers the agent names in its status (docs/agent-status.md): `revisionNumber`, the
 * number of the revision its report answers, and `appliedRevisionNumber`, the number of the one on
 * the host. With them `kubectl get nc` reads a node's row from status, and the configurator writes
 * no label after the agent's report (one write per node and move).
 *
 * The number of a spec is the configurator's `revision-number` label, written in the same write as
 * the spec, so the label of the NodeConfig at generation G is the number of G's revision. Numbers,
 * not hashes: two revisions may share content (a retry, a revert), and so share the hash.
 */
import { labelledRevisionNumber, type NodeConfig, type NodeConfigStatus } from '@nodenet/api';

interface NumberedRevision {
  revision: string;
  number: number;
}

export type ReportNumbers = Pick<NodeConfigStatus, 'revisionNumber' | 'appliedRevisionNumber'>;

/** How many generations are remembered: a report answers the newest one or one just before it. */
const MAX_GENERATIONS = 8;

export class RevisionNumbers {
  /** Per `metadata.generation` seen: its revision and number (the newest MAX_GENERATIONS). */
  private readonly byGeneration = new Map<number, NumberedRevision>();
  /** The revision on the host and its number, as last reported (or read back after a restart). */
  private onHost: NumberedRevision | undefined;

  /** Learns the number of the NodeConfig's generation; after a restart, the one on the host too. */
  observe(nc: NodeConfig): void {
    const number = labelledRevisionNumber(nc);
    const generation = nc.metadata.generation;
    if (number !== undefined && generation !== undefined) {
      this.byGeneration.delete(generation);
      this.byGeneration.set(generation, { revision: nc.spec.revision, number });
      for (const old of this.byGeneration.keys()) {
        if (this.byGeneration.size <= MAX_GENERATIONS) break;
        this.byGeneration.delete(old);
      }
    }
    const st = nc.status;
    if (!this.onHost && st?.lastAppliedRevision !== undefined && st.appliedRevisionNumber !== undefined)
      this.onHost = { revision: st.lastAppliedRevision, number: st.appliedRevisionNumber };
  }

  /**
   * The numbers of a report about to be written: each only when known. A report whose host runs
   * the revision it answers makes that number the host's.
   */
  numbersFor(report: { observedGeneration?: number; lastAppliedRevision?: string }): ReportNumbers {
    const { observedGeneration: generation, lastAppliedRevision: applied } = report;
    const answered = generation === undefined ? undefined : this.byGeneration.get(generation);
    if (answered && applied === answered.revision) this.onHost = answered;
    const onHost = applied !== undefined && this.onHost?.revision === applied ? this.onHost : undefined;
    return {
      ...(answered ? { revisionNumber: answered.number } : {}),
      ...(onHost ? { appliedRevisionNumber: onHost.number } : {}),
    };
  }
}
