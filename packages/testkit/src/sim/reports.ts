/** What the simulated agents reported, as the ledger's ground truth reads it (world.ts ledgerView). */
import type { NodeConfig } from '@nodenet/api';
import { numberOf } from './planner-adapter.js';

interface Report {
  number: number;
  at: number;
  cause?: string;
  invalid?: boolean;
}

export class AgentReports {
  private readonly last = new Map<string, Report>();
  private readonly interrupted = new Map<string, number>();

  /** The agent of `node` wrote this status at virtual time `t`. */
  record(node: string, nc: NodeConfig, t: number): void {
    const number = numberOf(nc);
    if (nc.status?.failureCause === 'Interrupted') {
      const k = `${node}|${number}`;
      this.interrupted.set(k, (this.interrupted.get(k) ?? 0) + 1);
    }
    this.last.set(node, {
      number,
      at: t,
      ...(nc.status?.configStatus === 'invalid' ? { invalid: true } : {}),
      ...(nc.status?.failureCause ? { cause: nc.status.failureCause } : {}),
    });
  }

  /** How many Interrupted reports the node's agent made on revision `number`. */
  interruptions(node: string, number: number): number {
    return this.interrupted.get(`${node}|${number}`) ?? 0;
  }

  /** The node's agent wrote a status on revision `number` since `at` (it answered its assignment). */
  answeredSince(node: string, number: number, at: number): boolean {
    const rep = this.last.get(node);
    return rep !== undefined && rep.number === number && rep.at >= at;
  }

  /** The node's agent itself reported the revision invalid (an answer, not a silence). */
  reportedInvalidOn(node: string, number: number): boolean {
    const rep = this.last.get(node);
    return rep?.number === number && rep.invalid === true;
  }

  /** The node's last report on revision `number`, made after `since`, was an Interrupted failure. */
  interruptedOn(node: string, number: number, since: number): boolean {
    const rep = this.last.get(node);
    // Handed the revision again after that report: the failure is not the report's.
    if (rep && rep.at < since) return false;
    return rep?.number === number && rep.cause === 'Interrupted';
  }
}
