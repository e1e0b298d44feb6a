/**
 * Human output in kubectl's style: plain columns separated by three spaces, upper-case headers, ages
 * like `5m` or `2h`. kubectl's own tables have no borders, so a box-drawing table library would only
 * make the plugin look unlike the tool it plugs into; the whole job is a padEnd per column.
 */
import { escapeControls } from '@nodenet/api';
import { stringify } from 'yaml';

/** Columns of one-line cells; a control character in a cell (from the server) is shown escaped. */
export function table(headers: string[], cells: string[][]): string {
  const rows = cells.map((r) => r.map((c) => escapeControls(c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('   ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

/** Age of a timestamp as kubectl prints it (`45s`, `12m`, `3h`, `2d`); empty when unknown. */
export function age(iso: string | undefined, nowMs: number): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  // Another machine's clock may run ahead: show 0s rather than a negative age.
  const s = Math.max(0, Math.floor((nowMs - t) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** `[██████░░░░]` for `done` of `total`. */
export function progressBar(done: number, total: number, width = 30): string {
  const filled = total > 0 ? Math.round((Math.min(done, total) / total) * width) : 0;
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}]`;
}

export type OutputFormat = 'table' | 'json' | 'yaml';

export function parseOutputFormat(value: string | undefined): OutputFormat {
  if (value === undefined || value === '' || value === 'table' || value === 'wide') return 'table';
  if (value === 'json' || value === 'yaml') return value;
  throw new Error(`-o/--output: must be json or yaml (got ${JSON.stringify(value)})`);
}

/** Machine output: the same data as the table, as JSON or YAML. */
export function machine(data: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? JSON.stringify(data, null, 2) + '\n' : stringify(data);
}

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
