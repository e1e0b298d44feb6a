/**
 * Drift is judged on FRR, not on the file: `frr-reload.py --test` compares the managed file with
 * FRR's running config and prints what a reload would delete and add. A change made by hand through
 * vtysh shows up here although the file never changed. Pure: parsing of that output, and the same
 * comparison done in-process (`configDrift`), which is what a resync runs, remembered between
 * resyncs (`DriftCheck`).
 */
import {
  redactPasswords,
  contextKey,
  describeChange,
  diffConfigs,
  parseConfig,
  type ConfigChange,
  type ParsedConfig,
} from '../text/index.js';

export interface ConfigDrift {
  /** Commands a reload would run to remove what FRR runs and the file lacks (`no …`, with their context). */
  toDelete: string[];
  /** Commands a reload would run to add what the file has and FRR lacks (with their context). */
  toAdd: string[];
}

/**
 * Differences a reload can never remove, so they are not drift: FRR 8.4 shows the kernel's host name
 * in its running config whatever `hostname` the file sets, and its own `frr version`, and leaves empty blocks out (`line vty`,
 * an `address-family` with nothing in it, as a template's has when no VRF fills it). Counting them
 * would reload FRR at every resync.
 */
const UNREPAIRABLE = [
  /^(no )?hostname \S+$/,
  /^(no )?frr version /,
  /^(no )?line vty$/,
  /(^| \/ )address-family [^/]+$/,
];

const repairable = (c: string): boolean => !UNREPAIRABLE.some((re) => re.test(c));

const HEADERS: Record<string, keyof ConfigDrift> = { 'Lines To Delete': 'toDelete', 'Lines To Add': 'toAdd' };

/**
 * Each command is one item; one that lives in a context spans several lines (`router bgp 1` /
 * ` address-family ipv4 unicast` / `  neighbor …`) and is kept as one item joined with ` / `.
 */
export function parseReloadTest(output: string): ConfigDrift {
  const drift: ConfigDrift = { toDelete: [], toAdd: [] };
  let into: keyof ConfigDrift | undefined;
  let current: string[] = [];
  const flush = (): void => {
    if (into && current.length) drift[into].push(current.join(' / '));
    current = [];
  };
  for (const line of output.split('\n')) {
    const header = HEADERS[line.trim()];
    if (header) {
      flush();
      into = header;
      continue;
    }
    if (/^=+$/.test(line.trim()) || line.trim() === '' || !into) continue;
    // A line at the top level starts the next command; indented lines continue the current one.
    if (line === line.trimStart()) flush();
    current.push(line.trim());
  }
  flush();
  return { toDelete: drift.toDelete.filter(repairable), toAdd: drift.toAdd.filter(repairable) };
}

export const isEmptyDrift = (d: ConfigDrift): boolean => d.toAdd.length === 0 && d.toDelete.length === 0;

/** One line for logs and events: what was added and removed. */
export function describeDrift(d: ConfigDrift, max = 5): string {
  const part = (what: string, items: string[]): string =>
    items.length === 0
      ? ''
      : `${what} ${items.length}: ${items.slice(0, max).join('; ')}${items.length > max ? '; …' : ''}`;
  return redactPasswords(
    [part('missing', d.toAdd), part('unexpected', d.toDelete)].filter(Boolean).join(' | '),
  );
}

/**
 * Drift without frr-reload.py: FRR's running config against the file, compared in-process as
 * frr-reload.py compares them (config-text.ts), in the item form of `parseReloadTest`. Differences
 * a reload can never remove (UNREPAIRABLE) and blocks FRR leaves out when empty (an address-family
 * nothing fills) are not drift. The driver confirms what this finds with `--test` before it
 * reloads: FRR may show a template line its own way.
 */
export function configDrift(runningText: string, fileText: string | ParsedConfig): ConfigDrift {
  const running = parseConfig(runningText);
  const file = typeof fileText === 'string' ? parseConfig(fileText) : fileText;
  const d = diffConfigs(running, file);
  const linesOf = (p: ParsedConfig, c: ConfigChange): string[] => p.get(contextKey(c.keys))?.lines ?? [];
  const items = (changes: ConfigChange[], from: ParsedConfig, deleted: boolean): string[] =>
    changes
      .flatMap((c) => {
        if (c.line !== undefined) return [describeChange(c, deleted)];
        const lines = linesOf(from, c);
        if (lines.length === 0 && c.keys.length > 1) return [];
        // A missing block is each of its lines, as --test lists them; a surplus one is one `no`.
        if (deleted || lines.length === 0) return [describeChange(c, deleted)];
        return lines.map((line) => describeChange({ keys: c.keys, line }, false));
      })
      .filter(repairable);
  return { toAdd: items(d.toAdd, file, false), toDelete: items(d.toDelete, running, true) };
}

/** The reads a resync's drift check makes (the driver's I/O). */
export interface DriftReads {
  /** FRR's running config as vtysh shows it (`show running-config`, every daemon merged). */
  running(): Promise<string>;
  /**
   * Every daemon's own running config, straight from its vty socket (frr/vty-socket.ts), as one
   * text; undefined when the sockets cannot be used.
   */
  daemons(): Promise<string | undefined>;
  /** `frr-reload.py --test`: what a reload would change. */
  confirm(): Promise<ConfigDrift>;
}

const noDrift = (): ConfigDrift => ({ toAdd: [], toDelete: [] });

/**
 * The in-process drift check of a resync, remembered between resyncs. An idle FRR answers with the
 * same text, byte for byte, every time:
 * - the daemons' own running configs, read over their sockets (no vtysh process, no merge, no
 *   parse), equal to what they showed when FRR last matched the same file: no drift;
 * - otherwise vtysh's merged `show running-config`; a text already judged as matching the same
 *   file is not parsed and compared again (at 50 VRFs, 13k lines, the parses are most of a
 *   resync's CPU in the agent), and the file's parse is kept while its text stays. What the daemons
 *   show is remembered after a match only when it was the same before and after the vtysh read.
 * A difference `frr-reload.py --test` did not count (a template line FRR shows its own way) is
 * remembered for the file text it was found with, so it is not confirmed again. Every verdict is a
 * function of the texts read (and of that confirmation): nothing to invalidate.
 */
export class DriftCheck {
  private file: { text: string; parsed: ParsedConfig } | undefined;
  private matched: { file: string; running: string } | undefined;
  private matchedDaemons: { file: string; daemons: string } | undefined;
  private benign: { file: string; signature: string } | undefined;

  /** What FRR runs differently from `file`, confirmed by `--test`; empty when it matches. */
  async check(file: string, reads: DriftReads): Promise<ConfigDrift> {
    const before = await reads.daemons();
    const known = this.matchedDaemons;
    if (before !== undefined && known?.file === file && known.daemons === before) return noDrift();
    const running = await reads.running();
    const local = this.judge(running, file);
    if (local !== 'match') {
      const drift = await reads.confirm();
      if (!isEmptyDrift(drift)) return drift;
      this.confirmBenign(running, file, local);
    }
    if (before !== undefined && (await reads.daemons()) === before) {
      this.matchedDaemons = { file, daemons: before };
    }
    return noDrift();
  }

  /**
   * `match` when FRR runs what `file` says (or differs from it only as confirmed before); otherwise
   * what the in-process comparison found, for `frr-reload.py --test` to confirm.
   */
  judge(running: string, file: string): 'match' | ConfigDrift {
    if (this.matched?.file === file && this.matched.running === running) return 'match';
    if (this.file?.text !== file) this.file = { text: file, parsed: parseConfig(file) };
    const local = configDrift(running, this.file.parsed);
    const known = this.benign?.file === file && this.benign.signature === JSON.stringify(local);
    if (!isEmptyDrift(local) && !known) return local;
    this.matched = { file, running };
    return 'match';
  }

  /** `frr-reload.py --test` found nothing where `judge` found `local`: not drift, for this file. */
  confirmBenign(running: string, file: string, local: ConfigDrift): void {
    this.benign = { file, signature: JSON.stringify(local) };
    this.matched = { file, running };
  }
}
