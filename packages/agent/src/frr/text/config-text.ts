/**
 * FRR configuration text as frr-reload.py sees it: a set of contexts, each keyed by its header lines
 * (`router bgp 1` / ` address-family ipv4 unicast`), holding its command lines; a top-level command
 * outside any block (`ip prefix-list …`) is a context of its own without lines. The same parser
 * reads a rendered file and FRR's `show running-config`, so "the file says X, FRR runs Y" and "the
 * previous file said X, the new one says Y" are both a `diffConfigs` of two parses. Normalised like
 * frr-reload.py's Config: whitespace collapsed, comments and `!` dropped, order inside a context
 * ignored (FRR orders some lines its own way). Pure and linear in the text's length.
 */

/** Keywords that open a context, nested as FRR nests them (frr-reload.py's `ctx_keywords`). */
type Keywords = { readonly [prefix: string]: Keywords };
const CONTEXT_KEYWORDS: Keywords = {
  'router bgp ': {
    'address-family ': { 'vni ': {} },
    'vnc defaults': {},
    'vnc nve-group ': {},
    'vnc l2-group ': {},
    'vrf-policy ': {},
    'bmp targets ': {},
    'segment-routing srv6': {},
  },
  'router rip': {},
  'router ripng': {},
  'router isis ': {},
  'router openfabric ': {},
  'router ospf': {},
  'router ospf6': {},
  'router eigrp ': {},
  'router babel': {},
  'mpls ldp': { 'address-family ': { 'interface ': {} } },
  'l2vpn ': { 'member pseudowire ': {} },
  'key chain ': { 'key ': {} },
  'vrf ': {},
  'interface ': { 'link-params': {} },
  'pseudowire ': {},
  'nexthop-group ': {},
  'route-map ': {},
  'pbr-map ': {},
  rpki: {},
  bfd: { 'peer ': {}, 'profile ': {} },
  'line vty': {},
};

export interface ConfigContext {
  /** Header lines from the top level down (normalised). */
  readonly keys: readonly string[];
  /** Command lines inside, in file order, without duplicates (normalised). */
  readonly lines: string[];
}

/** Contexts by `contextKey(keys)`, in the order they first appear. */
export type ParsedConfig = Map<string, ConfigContext>;

export const contextKey = (keys: readonly string[]): string => keys.join('\n');

/** Lines of `show running-config` that are FRR's preamble, not configuration. */
const PREAMBLE = new Set(['Building configuration...', 'Current configuration:', 'end']);

/** A level's keywords by their first word: a line is tried against the few that can match. */
const byFirstWord = new WeakMap<Keywords, Map<string, string[]>>();
function keywordFor(keywords: Keywords, line: string): string | undefined {
  let index = byFirstWord.get(keywords);
  if (!index) {
    index = new Map();
    for (const k of Object.keys(keywords)) {
      const word = k.split(' ')[0]!;
      index.set(word, [...(index.get(word) ?? []), k]);
    }
    byFirstWord.set(keywords, index);
  }
  const space = line.indexOf(' ');
  const candidates = index.get(space < 0 ? line : line.slice(0, space));
  return candidates?.find((k) => line.startsWith(k));
}

/** A normalised line the parse skips: blank, a comment, `!`, FRR's preamble. */
export const isSkippedLine = (line: string): boolean =>
  line === '' || line.startsWith('!') || line.startsWith('#') || PREAMBLE.has(line);

/** A normalised line at the top level opens a context (`route-map …`, `router bgp …`). */
export const opensTopLevelContext = (line: string): boolean =>
  keywordFor(CONTEXT_KEYWORDS, line) !== undefined;

interface Open {
  ctx: ConfigContext;
  indent: number;
  keywords: Keywords;
  seen: Set<string>;
}

export function parseConfig(text: string): ParsedConfig {
  const out: ParsedConfig = new Map();
  const seenOf = new Map<string, Set<string>>();
  const stack: Open[] = [];
  const open = (keys: readonly string[], indent: number, keywords: Keywords): void => {
    const key = contextKey(keys);
    let ctx = out.get(key);
    if (!ctx) out.set(key, (ctx = { keys, lines: [] }));
    let seen = seenOf.get(key);
    if (!seen) seenOf.set(key, (seen = new Set()));
    stack.push({ ctx, indent, keywords, seen });
  };
  for (const raw of text.split('\n')) {
    const trimmed = raw.trim();
    const line = trimmed.includes('  ') || trimmed.includes('\t') ? trimmed.replace(/\s+/g, ' ') : trimmed;
    if (isSkippedLine(line)) continue;
    // Everything before the first occurrence of the line's first character is indentation.
    const indent = raw.indexOf(trimmed[0]!);
    if (line.startsWith('exit')) {
      stack.pop();
      continue;
    }
    // A file without `exit` lines closes a block by going back to (or before) its header's indentation.
    while (stack.length > 0 && indent <= stack[stack.length - 1]!.indent) stack.pop();
    const top = stack[stack.length - 1];
    const keywords = top ? top.keywords : CONTEXT_KEYWORDS;
    const opens = keywordFor(keywords, line);
    if (opens !== undefined) {
      open([...(top?.ctx.keys ?? []), line], indent, keywords[opens]!);
    } else if (top) {
      if (!top.seen.has(line)) {
        top.seen.add(line);
        top.ctx.lines.push(line);
      }
    } else if (!out.has(line)) {
      out.set(line, { keys: [line], lines: [] });
    }
  }
  return out;
}

/** One difference: a whole context (`line` undefined) or one line of a context. */
export interface ConfigChange {
  keys: readonly string[];
  line?: string;
}

export interface ConfigDiff {
  /** In `to`, not in `from`: whole contexts first seen, then lines of contexts both have. */
  toAdd: ConfigChange[];
  /** In `from`, not in `to`. */
  toDelete: ConfigChange[];
}

/** What turns `from` into `to`, context by context (order inside a context ignored). */
export function diffConfigs(from: ParsedConfig, to: ParsedConfig): ConfigDiff {
  const diff: ConfigDiff = { toAdd: [], toDelete: [] };
  for (const [key, ctx] of to) {
    const before = from.get(key);
    if (!before) {
      diff.toAdd.push({ keys: ctx.keys });
      continue;
    }
    // Most contexts are one-line commands (prefix-lists): nothing inside to compare.
    if (ctx.lines.length === 0) continue;
    const had = new Set(before.lines);
    for (const line of ctx.lines) if (!had.has(line)) diff.toAdd.push({ keys: ctx.keys, line });
  }
  for (const [key, ctx] of from) {
    const after = to.get(key);
    if (!after) {
      diff.toDelete.push({ keys: ctx.keys });
      continue;
    }
    if (ctx.lines.length === 0) continue;
    const has = new Set(after.lines);
    for (const line of ctx.lines) if (!has.has(line)) diff.toDelete.push({ keys: ctx.keys, line });
  }
  return diff;
}

/** As frr-reload.py --test prints an item: the context lines and the line, joined with ` / `. */
export const describeChange = (c: ConfigChange, deleted: boolean): string => {
  const last = c.line ?? c.keys[c.keys.length - 1]!;
  const head = c.line === undefined ? c.keys.slice(0, -1) : c.keys;
  return [...head, deleted ? `no ${last}` : last].join(' / ');
};
