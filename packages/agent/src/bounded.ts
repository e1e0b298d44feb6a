/**
 * Bounds on everything the agent writes to the API (issue #24 item 7): a message from FRR or a check
 * can be any size, and one object too large to store makes every later write of it fail — the
 * agent's status, and the configurator's copy of it into the revision. Texts are cut to
 * `MAX_MESSAGE_BYTES` with a marker that says how much was left out; lists to `MAX_OBSERVED_ITEMS`.
 * The caller logs the whole text (the log is where a person reads the rest).
 */
import { escapeControls, isObservedWord, MAX_OBSERVED_ITEMS, type ObservedState } from '@nodenet/api';

/** Longest message the agent writes (status, conditions, Events, rejected.json), in UTF-8 bytes. */
export const MAX_MESSAGE_BYTES = 2048;
/** Most BGP sessions and VNIs listed in `status.observed` (the summaries still count them all): the CRD's. */
export { MAX_OBSERVED_ITEMS };

/**
 * `text` when it fits in `maxBytes` (UTF-8); otherwise its start, cut on a character boundary, and a
 * marker `… [N more bytes]` so that the whole result fits in `maxBytes`.
 */
export function boundText(raw: string, maxBytes = MAX_MESSAGE_BYTES): string {
  // Controls (a terminal escape in an FRR error, a bidi override) are written escaped: whoever
  // prints the status later sees them, they do not act (issue #37).
  const text = escapeControls(raw, true);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return text;
  const buf = Buffer.from(text, 'utf8');
  // The marker's digits depend on how much is cut; reserve for the longest possible.
  const reserve = Buffer.byteLength(` … [${bytes} more bytes; whole text in the agent's log]`, 'utf8');
  let end = Math.max(0, maxBytes - reserve);
  // Step back to a character boundary (never split a UTF-8 sequence).
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  const left = bytes - end;
  return `${buf.subarray(0, end).toString('utf8')} … [${left} more bytes; whole text in the agent's log]`;
}

/** True when `boundText` would cut `text`. */
export const exceedsBound = (text: string, maxBytes = MAX_MESSAGE_BYTES): boolean =>
  Buffer.byteLength(text, 'utf8') > maxBytes;

/**
 * The observed state as written: at most `MAX_OBSERVED_ITEMS` sessions and VNIs (the summaries keep
 * the full counts, and `error` says how many were left out), every string bounded.
 */
export function boundObserved(observed: ObservedState, maxItems = MAX_OBSERVED_ITEMS): ObservedState {
  const out: ObservedState = { ...observed };
  const notes: string[] = [];
  // The CRD admits only words JSON stores byte for byte (OBSERVED_WORD_PATTERN): an entry with any
  // other text is left out, so that one odd name from FRR can not make every status write fail.
  const words = (...xs: unknown[]): boolean => xs.every((x) => x === undefined || isObservedWord(x));
  const sessions = out.bgpSessions?.filter((x) => words(x.vrf, x.peer, x.state, x.since));
  const vnis = out.vnis?.filter((x) => words(x.vrf, x.vxlanInterface, x.state));
  const dropped =
    (out.bgpSessions?.length ?? 0) - (sessions?.length ?? 0) + (out.vnis?.length ?? 0) - (vnis?.length ?? 0);
  if (dropped > 0) notes.push(`${dropped} entries with names the status can not hold not listed`);
  if (sessions) out.bgpSessions = sessions;
  if (vnis) out.vnis = vnis;
  if (out.bgpSessions && out.bgpSessions.length > maxItems) {
    notes.push(`${out.bgpSessions.length - maxItems} more BGP sessions not listed`);
    out.bgpSessions = out.bgpSessions.slice(0, maxItems);
  }
  if (out.vnis && out.vnis.length > maxItems) {
    notes.push(`${out.vnis.length - maxItems} more VNIs not listed`);
    out.vnis = out.vnis.slice(0, maxItems);
  }
  const error = [out.error, ...notes].filter(Boolean).join('; ');
  if (error) out.error = boundText(error, 1024);
  for (const key of ['frrVersion', 'bgpSummary', 'vniSummary'] as const) {
    const value = out[key];
    if (value !== undefined) out[key] = boundText(value, 256);
  }
  return out;
}
