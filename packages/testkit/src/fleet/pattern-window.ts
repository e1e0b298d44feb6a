/**
 * A pattern-playing simulated agent's confirm window (agent-write-pattern.ts): the progress reports
 * after the first (written when the assignment arrived), each with its Node condition, then the
 * window's liveness writes, one after the previous landed.
 */
import { shortHash } from '@nodenet/api';
import type { AgentReport } from '../agent-status.js';
import { livenessWrites, type AgentWritePattern } from './agent-write-pattern.js';
import type { PatternWrites } from './pattern-writes.js';

export interface WindowAttempt {
  node: string;
  revision: string;
  previous: string | undefined;
}

export interface WindowDeps {
  /** The agent still works on this assignment (not stopped, no newer one). */
  live: () => boolean;
  /** A NodeConfig status write of the agent, queued like its others. */
  write: (report: AgentReport) => Promise<void>;
  writes: PatternWrites | undefined;
}

/** Plays the window; false when the agent stopped or got a new assignment meanwhile. */
export async function playConfirmWindow(
  p: AgentWritePattern,
  a: WindowAttempt,
  d: WindowDeps,
): Promise<boolean> {
  const { node, revision } = a;
  let report: AgentReport = { configStatus: 'provisioning' };
  for (const [i, r] of p.progress.entries()) {
    report = {
      configStatus: 'provisioning',
      ...(a.previous ? { lastAppliedRevision: a.previous } : {}),
      message: `${r.reason} ${shortHash(revision)}`,
    };
    if (i === 0) continue; // written when the assignment arrived
    if (!d.live()) return false;
    await d.write(report);
    d.writes?.conditions(node, revision, p.nodeCondition.changing.slice(i, i + 1));
  }
  const ns = p.liveness.leaseNamespace ?? 'default';
  for (let k = 0; k < livenessWrites(p); k++) {
    await new Promise((r) => setTimeout(r, p.liveness.intervalMs));
    if (!d.live()) return false;
    if (p.liveness.kind === 'lease') await d.writes?.lease(node, ns, new Date().toISOString());
    else await d.write(report);
  }
  return d.live();
}
