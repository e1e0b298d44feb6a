/** The status a simulated agent writes, as the real agent writes it (docs/agent-status.md). */
import type { NodeConfigStatus } from '@nodenet/api';

/** What an agent reports; the time and the Ready condition are added as the real agent adds them. */
export type AgentReport = Omit<NodeConfigStatus, 'lastUpdate' | 'conditions'>;

/** The report with its time and its Ready condition (True only when provisioned), answering `generation`. */
export function reportedStatus(r: AgentReport, at: string, generation: number | undefined): NodeConfigStatus {
  return {
    ...r,
    lastUpdate: at,
    conditions: [
      {
        type: 'Ready',
        status: r.configStatus === 'provisioned' ? 'True' : 'False',
        reason: r.configStatus ?? 'Unknown',
        message: r.message ?? '',
        lastTransitionTime: at,
        ...(generation !== undefined ? { observedGeneration: generation } : {}),
      },
    ],
  };
}
