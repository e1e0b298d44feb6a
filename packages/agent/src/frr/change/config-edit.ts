/**
 * The parse of an edited config text from the parse of the text before it (config-text.ts), when
 * the edit replaced only top-level lines outside any block: the `ip prefix-list …` lines a change
 * of prefix items makes. At 50 VRFs a whole parse and diff cost the agent ~15 ms of CPU per change
 * (and the garbage of 16k lines); this compares the two texts' common head and tail and looks only
 * at the lines between. The result is exactly `parseConfig(to)` (contexts and their order) and
 * `diffConfigs(from, parseConfig(to))`; where that cannot be told cheaply (a line inside a block, a
 * line that occurs twice, many lines) it is undefined and the caller parses the whole text. Pure.
 */
import {
  isSkippedLine,
  opensTopLevelContext,
  type ConfigContext,
  type ConfigDiff,
  type ParsedConfig,
} from '../text/index.js';

/** Beyond this many changed lines a whole parse is as cheap as the searches below. */
const MAX_LINES = 16;

/**
 * Every line is written as the parse keys it (past its indentation): no doubled space inside a
 * line, no tab, no space at a line's end, no carriage return. (A scan for the few doubled spaces
 * there are, all of them indentation: a fifth of a regular expression's cost on 640 KB.)
 */
function normalised(text: string): boolean {
  if (text.includes('\t') || text.includes('\r') || text.includes(' \n') || text.endsWith(' ')) return false;
  for (let at = text.indexOf('  '); at >= 0; at = text.indexOf('  ', at + 2)) {
    let start = at;
    while (start > 0 && text[start - 1] === ' ') start--;
    if (start > 0 && text[start - 1] !== '\n') return false;
    while (text[at + 2] === ' ') at++;
  }
  return true;
}

/**
 * Parses this module made, of texts it found normalised: the text the next edit starts from is the
 * one the last edit made, and its scan (~2 ms at 50 VRFs) need not run again. Keyed by the parse.
 */
const NORMALISED = new WeakSet<ParsedConfig>();

export interface TopLevelEdit {
  /** `parseConfig(to)`. */
  parsed: ParsedConfig;
  /** `diffConfigs(from, parseConfig(to))`. */
  diff: ConfigDiff;
}

/** Length of the common head of `a` and `b` (compared in blocks, then by character). */
function commonHead(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  for (const size of [65536, 4096, 256, 16])
    while (i + size <= n && a.slice(i, i + size) === b.slice(i, i + size)) i += size;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Length of the common tail of `a` and `b`, at most `max`. */
function commonTail(a: string, b: string, max: number): number {
  let j = 0;
  for (const size of [65536, 4096, 256, 16])
    while (
      j + size <= max &&
      a.slice(a.length - j - size, a.length - j) === b.slice(b.length - j - size, b.length - j)
    )
      j += size;
  while (j < max && a.charCodeAt(a.length - j - 1) === b.charCodeAt(b.length - j - 1)) j++;
  return j;
}

const startsLine = (text: string, at: number): boolean => at === 0 || text[at - 1] === '\n';

/**
 * The context keys of the lines `text[from, to)`: each a top-level line without a block, written
 * as the parse keys it (no indentation, no doubled or trailing space). Undefined when a line is
 * anything else. Skipped lines (`!`, blank) have no key.
 */
function plainLines(text: string, from: number, to: number): string[] | undefined {
  if (from === to) return [];
  const raws = text.slice(from, to).split('\n');
  if (raws[raws.length - 1] === '') raws.pop();
  const keys: string[] = [];
  for (const raw of raws) {
    const trimmed = raw.trim();
    if (isSkippedLine(trimmed.replace(/\s+/g, ' '))) continue;
    const plain = raw === trimmed && !/\s\s|\t/.test(raw);
    if (!plain || raw.startsWith('exit') || opensTopLevelContext(raw)) return undefined;
    keys.push(raw);
  }
  return keys;
}

/** The first line from `at` the parse does not skip (undefined at the end of the text). */
function firstLineFrom(text: string, at: number): { raw: string; at: number } | undefined {
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl;
    const raw = text.slice(at, end);
    if (!isSkippedLine(raw.trim().replace(/\s+/g, ' '))) return { raw, at };
    at = end + 1;
  }
  return undefined;
}

/** `line` occurs in `text` once only (as any substring: a conservative test of "one context"). */
const once = (text: string, line: string): boolean => {
  const first = text.indexOf(line);
  return first >= 0 && text.indexOf(line, first + 1) < 0;
};

/** See the module comment. `from` is `parseConfig(fromText)`. */
export function editTopLevel(fromText: string, from: ParsedConfig, toText: string): TopLevelEdit | undefined {
  if (fromText === toText) return undefined;
  const head = fromText.lastIndexOf('\n', commonHead(fromText, toText) - 1) + 1;
  const tail = commonTail(fromText, toText, Math.min(fromText.length, toText.length) - head);
  let endFrom = fromText.length - tail;
  let endTo = toText.length - tail;
  // The common tail must start a line in both texts: else from the next line it holds.
  if (!startsLine(fromText, endFrom) || !startsLine(toText, endTo)) {
    const nl = fromText.indexOf('\n', endFrom);
    const shift = nl < 0 ? fromText.length - endFrom : nl + 1 - endFrom;
    endFrom += shift;
    endTo += shift;
  }
  const removedLines = plainLines(fromText, head, endFrom);
  const addedLines = plainLines(toText, head, endTo);
  if (!removedLines || !addedLines || removedLines.length + addedLines.length > MAX_LINES) return undefined;
  if (!removedLines.every((l) => once(fromText, l)) || !addedLines.every((l) => once(toText, l)))
    return undefined;
  // The line after the changed ones must close every block in both texts (the parse then goes on alike).
  const next = firstLineFrom(fromText, endFrom);
  if (next && (/^\s/.test(next.raw) || next.raw.startsWith('exit'))) return undefined;
  // A line written otherwise than the parse keys it would make "occurs once" say nothing.
  if (!NORMALISED.has(from) && !normalised(fromText)) return undefined;
  // Where the new contexts go: where the old ones were, or before the context the next line opens
  // when that is where it first occurs.
  const anchor = removedLines[0] ?? next?.raw;
  if (
    anchor !== undefined &&
    (!from.has(anchor) || (!removedLines[0] && fromText.indexOf(anchor) !== next!.at))
  )
    return undefined;
  const old = new Set(removedLines);
  const parsed: ParsedConfig = new Map();
  const insert = (): void => {
    for (const l of addedLines)
      parsed.set(l, from.get(l) ?? ({ keys: [l], lines: [] } satisfies ConfigContext));
  };
  for (const [key, ctx] of from) {
    if (key === anchor) insert();
    if (!old.has(key)) parsed.set(key, ctx);
  }
  if (anchor === undefined) insert();
  // The common head and tail are the normalised old text's, the lines between plain.
  NORMALISED.add(parsed);
  const added = addedLines.filter((l) => !old.has(l));
  const removed = removedLines.filter((l) => !addedLines.includes(l));
  return {
    parsed,
    diff: {
      toAdd: added.map((l) => ({ keys: parsed.get(l)!.keys })),
      toDelete: removed.map((l) => ({ keys: from.get(l)!.keys })),
    },
  };
}
