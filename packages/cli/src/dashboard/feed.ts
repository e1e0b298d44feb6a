/**
 * The server-sent event feed of the dashboard: a snapshot of the facts to each page that connects,
 * then to all pages the changed cells (and the small parts whole) at most UPDATES_PER_SECOND times a
 * second, whatever the fleet does. Pages that do not read are dropped (they reconnect and get a
 * snapshot), so a stalled tab cannot grow the server's memory.
 */
import type http from 'node:http';
import type { DashboardFacts, NodeCell } from './facts.js';

/** At most this many pushes a second, however fast the fleet changes. */
export const UPDATES_PER_SECOND = 4;
/** Open pages at most. */
export const MAX_PAGES = 32;
/** A page that does not read its events is dropped past this much unsent data. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/** What an update carries: the facts but the cells, and the cells that changed or went. */
export type FactsUpdate = Omit<DashboardFacts, 'cells'> & { changed: NodeCell[]; removed: string[] };

export class FactsFeed {
  private readonly pages = new Set<http.ServerResponse>();
  private current: DashboardFacts | undefined;
  /** The cells last sent, by node. */
  private sent = new Map<string, NodeCell>();
  private timer: NodeJS.Timeout | undefined;
  private lastPush = -Infinity;

  constructor(private readonly compute: () => DashboardFacts) {}

  /** Computes the first facts (once the informers have synced); changes are pushed from then on. */
  start(): void {
    this.current = this.compute();
    this.sent = indexCells(this.current);
  }

  get facts(): DashboardFacts {
    return (this.current ??= this.compute());
  }

  get full(): boolean {
    return this.pages.size >= MAX_PAGES;
  }

  /**
   * Something changed: push within 1/UPDATES_PER_SECOND s. Throttled, not debounced: a fleet that
   * never stops changing is still shown.
   */
  changed(): void {
    if (this.timer || !this.current) return;
    const wait = Math.max(0, this.lastPush + 1000 / UPDATES_PER_SECOND - performance.now());
    this.timer = setTimeout(() => this.push(), wait);
  }

  /** A page connected: it gets the facts as last pushed, then every update. */
  add(res: http.ServerResponse): void {
    this.pages.add(res);
    res.on('close', () => this.pages.delete(res));
    this.send(res, frame('snapshot', this.facts));
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const res of this.pages) res.end();
    this.pages.clear();
  }

  /**
   * The update from what was last pushed to `next` (pure in its inputs; exported for tests). A cell
   * that is the same object as before is unchanged (NodeCells keeps those); another object is
   * compared by content.
   */
  static diff(
    sent: Map<string, NodeCell>,
    next: DashboardFacts,
  ): { update: FactsUpdate; index: Map<string, NodeCell> } {
    const index = indexCells(next);
    const changed = next.cells.filter((c) => {
      const before = sent.get(c.node);
      return before !== c && (before === undefined || !sameCell(before, c));
    });
    const removed = [...sent.keys()].filter((n) => !index.has(n));
    const { cells: _cells, ...rest } = next;
    return { update: { ...rest, changed, removed }, index };
  }

  private push(): void {
    this.timer = undefined;
    this.lastPush = performance.now();
    const next = this.compute();
    const { update, index } = FactsFeed.diff(this.sent, next);
    this.current = next;
    this.sent = index;
    const f = frame('update', update);
    for (const res of this.pages) this.send(res, f);
  }

  private send(res: http.ServerResponse, f: string): void {
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      this.pages.delete(res);
      res.destroy();
      return;
    }
    res.write(f);
  }
}

const indexCells = (f: DashboardFacts): Map<string, NodeCell> => new Map(f.cells.map((c) => [c.node, c]));

const sameCell = (a: NodeCell, b: NodeCell): boolean => JSON.stringify(a) === JSON.stringify(b);

const frame = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
