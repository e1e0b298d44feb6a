/** Go-style durations for flags: `10m`, `30s`, `1h30m`, `250ms`, `0` or `0s`. */
import { OptionError } from '@nodenet/api';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a duration into milliseconds; `flag` names the option in the error. */
export function parseDuration(value: string, flag = 'duration'): number {
  const text = value.trim();
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    total += Number(m[1]) * (UNITS[m[2] as string] as number);
    matched = re.lastIndex;
  }
  if (matched === 0 || matched !== text.length)
    throw new OptionError(flag, value, 'must be a number with a unit, e.g. 500ms, 30s, 10m, 1h30m');
  return Math.round(total);
}

/** Formats milliseconds the same way (for logs and messages). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${Number(s.toFixed(3))}s` : ''}`;
}
