/**
 * The file keeping the VRF table allocation across restarts (NetlinkDriverOptions.tableStatePath):
 * a VRF that comes back gets its old table (and the routes other systems keyed to it) again.
 */
import { readFile } from 'node:fs/promises';
import { writeFileDurably } from '../durable-file.js';
import { rememberedTables } from './desired.js';
import { NetlinkDriverError } from './errors.js';
import type { TableAllocation } from './model.js';

export class TableStateFile {
  /** The file's text as last read or written: an unchanged allocation is not rewritten. */
  private text: string | undefined;

  /** @param path undefined: nothing is kept, a VRF keeps its table as long as its device exists. */
  constructor(private readonly path: string | undefined) {}

  get kept(): boolean {
    return this.path !== undefined;
  }

  async load(): Promise<TableAllocation | undefined> {
    if (this.path === undefined) return undefined;
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
      this.text = text;
    } catch (err) {
      this.text = undefined;
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new NetlinkDriverError(
        'TableStateUnreadable',
        `cannot read ${this.path}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    try {
      const parsed = JSON.parse(text) as { tables?: unknown };
      const tables = parsed.tables;
      if (typeof tables !== 'object' || tables === null) throw new Error('no "tables" object');
      return new Map(Object.entries(tables).filter((e): e is [string, number] => Number.isInteger(e[1])));
    } catch (err) {
      // A damaged file only loses the memory of removed VRFs' tables: running VRFs keep theirs from the host.
      console.warn(`netlink driver: ignoring ${this.path}: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** Saves the allocation durably (like the checkpoints), keeping the tables of VRFs removed since. */
  async save(tables: TableAllocation, previous: TableAllocation | undefined): Promise<void> {
    if (this.path === undefined) return;
    const text = `${JSON.stringify({ tables: Object.fromEntries(rememberedTables(previous, tables)) }, null, 2)}\n`;
    // A converged re-apply (every resync) would otherwise fsync the same bytes each time.
    if (text === this.text) return;
    await writeFileDurably(this.path, text);
    this.text = text;
  }
}
