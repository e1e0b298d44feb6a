/**
 * The writes that only tell progress, paced together: count-only revision status writes
 * (status-pace.ts) and `NodesAssigned` Events gathered over passes (assigned-events.ts). The
 * controller keeps one and looks again when `nextDueInMs` says, so a held-back write always lands.
 */
import { AssignedEvents } from './assigned-events.js';
import { StatusPace } from './status-pace.js';

export class WritePace {
  readonly status: StatusPace;
  readonly assigned: AssignedEvents;

  constructor(opts: { statusIntervalMs?: number; assignedWindowMs?: number } = {}) {
    this.status = new StatusPace(opts.statusIntervalMs);
    this.assigned = new AssignedEvents(opts.assignedWindowMs);
  }

  /** How long until the first held-back write is due (undefined: none waits). */
  nextDueInMs(mono: number): number | undefined {
    const due = [this.status.nextDueInMs(mono), this.assigned.nextDueInMs(mono)].filter(
      (ms): ms is number => ms !== undefined,
    );
    return due.length > 0 ? Math.min(...due) : undefined;
  }
}
