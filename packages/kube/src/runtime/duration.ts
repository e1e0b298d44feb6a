/**
 * Durations as both binaries' flags and the RolloutPolicy fields write them, Go style: `500ms`,
 * `30s`, `1.5s`, `10m`, `1h30m`, and `0` or `0s`. One grammar for every flag; each flag checks its
 * own lower bound after parsing.
 */
import { DURATION_PATTERN, OptionError } from '@nodenet/api';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
/** The grammar: the RolloutPolicy CRD's pattern, so a flag and a policy field accept the same text. */
const DURATION = new RegExp(DURATION_PATTERN);

/** Parses `text` into milliseconds; a bad value fails with an `OptionError` naming `flag`. */
export function parseDuration(flag: string, text: string): number {
  const trimmed = text.trim();
  if (!DURATION.test(trimmed))
    throw new OptionError(flag, text, 'must be a duration such as 500ms, 30s, 1.5s, 10m, 1h30m or 0');
  let total = 0;
  for (const m of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g))
    total += Number(m[1]) * (UNITS[m[2] as string] as number);
  return Math.round(total);
}

/** Formats milliseconds in the same grammar (for logs and messages). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${Number(s.toFixed(3))}s` : ''}`;
}
