/**
 * The `NodesAssigned` Events of a revision, gathered over passes. A rollout assigns a few nodes in
 * each of many passes; an Event per pass was an API write per pass, and past the Event spam limit
 * (25 per object) the later ones were dropped. Here the first assignments after a quiet window are
 * reported at once, and the ones that follow within `windowMs` (on the configurator's monotonic
 * clock) in one Event when the window ends: how many nodes and which (the first
 * ASSIGNED_NAMES_LISTED of them), so its message stays bounded and true. The controller looks again
 * when the window ends (nextDueInMs), so a gathered Event is always recorded.
 */

/** Longest a `NodesAssigned` Event waits to gather the assignments of later passes. */
export const ASSIGNED_EVENT_WINDOW_MS = 5000;
/** Nodes an Event names; the rest are counted. */
export const ASSIGNED_NAMES_LISTED = 20;

/** One Event to record: `count` nodes assigned to `revision` over `passes` passes, the first of them named. */
export interface AssignedDigest {
  revision: string;
  count: number;
  names: string[];
  passes: number;
}

export class AssignedEvents {
  /** Per revision: when its last Event was recorded (monotonic ms); forgotten after a window. */
  private lastAt = new Map<string, number>();
  private pending = new Map<string, AssignedDigest>();

  constructor(private readonly windowMs = ASSIGNED_EVENT_WINDOW_MS) {}

  /** The nodes a pass assigned to `revision` (sorted by the caller). */
  add(revision: string, nodes: readonly string[]): void {
    if (nodes.length === 0) return;
    const p = this.pending.get(revision) ?? { revision, count: 0, names: [], passes: 0 };
    const room = ASSIGNED_NAMES_LISTED - p.names.length;
    this.pending.set(revision, {
      revision,
      count: p.count + nodes.length,
      names: room > 0 ? [...p.names, ...nodes.slice(0, room)] : p.names,
      passes: p.passes + 1,
    });
  }

  /**
   * The Events due at `mono` (each counts as recorded then), and those of the revisions in `now`
   * (one completing: its assignments are told before its completion); the others keep gathering.
   */
  due(mono: number, now: ReadonlySet<string> = new Set()): AssignedDigest[] {
    const out: AssignedDigest[] = [];
    for (const [revision, digest] of this.pending) {
      if (!now.has(revision) && mono - (this.lastAt.get(revision) ?? -Infinity) < this.windowMs) continue;
      out.push(digest);
      this.pending.delete(revision);
      this.lastAt.set(revision, mono);
    }
    for (const [revision, at] of this.lastAt)
      if (!this.pending.has(revision) && mono - at >= this.windowMs) this.lastAt.delete(revision);
    return out;
  }

  /** How long until the first gathered Event is due (undefined: none waits). */
  nextDueInMs(mono: number): number | undefined {
    let first: number | undefined;
    for (const revision of this.pending.keys()) {
      const at = (this.lastAt.get(revision) ?? mono - this.windowMs) + this.windowMs;
      first = Math.min(first ?? Infinity, at);
    }
    return first === undefined ? undefined : Math.max(0, first - mono);
  }
}

/** The Event's message: how many nodes, over how many passes, which (the first listed). */
export function assignedMessage(d: AssignedDigest, number: number, verb = 'assigned'): string {
  const more = d.count - d.names.length;
  const list = more > 0 ? `${d.names.join(', ')} and ${more} more` : d.names.join(', ');
  const over = d.passes > 1 ? ` over ${d.passes} passes` : '';
  return `${verb} ${d.count} node(s) to revision ${number}${over}: ${list}`;
}
