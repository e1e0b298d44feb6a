/**
 * The read-back of a fast-path change (fast-path.ts): the show commands that read each touched
 * object from every daemon that holds it, and the comparison of their answers with the new file.
 * `show running-config` costs every daemon a dump of its whole config and vtysh a merge of all of
 * them (~190 ms CPU at 50 VRFs on FRR 8.4); a named object costs almost nothing:
 *  - a touched prefix-list: `show ip[v6] prefix-list NAME json`; every daemon that answers must hold
 *    exactly the file's lines of that list, and bgpd must answer;
 *  - a touched route-map entry: `show route-map NAME json`; every daemon holds the map's entries
 *    (sequence and action) the file has and no other, each with match and set clauses of the file
 *    only, all daemons together every clause of the file, bgpd holding the map when the file does.
 * So the whole object is compared, not only the touched lines. What these shows cannot tell falls
 * back to a config dump, compared in the touched contexts: a prefix-list the change removes (vtysh
 * stops asking daemons at the first that lacks the list, so bgpd's answer would be missing), a
 * route-map line other than `match`/`set`, and the VRF instance lines, read from bgpd alone
 * (`show running-config bgpd`: only bgpd holds them). Pure; the driver runs the commands.
 */
import { contextKey, type ParsedConfig, touchedMismatches } from '../text/index.js';

const PREFIX_LIST = /^(ip|ipv6) prefix-list (\S+) seq \d+ /;
const ROUTE_MAP_ENTRY = /^route-map (\S+) (permit|deny) (\d+)$/;
/** The daemon that uses nodenet's policy: it must be among those that answer. */
const BGPD = 'BGP';

export interface ReadBack {
  /** Show commands, run after the change in the same vtysh. */
  commands: string[];
  /** What FRR runs differently from the file, one item each (empty: the change is in force). */
  mismatches(answers: readonly string[]): string[];
}

/**
 * Top-level JSON objects printed back to back (vtysh prints one per daemon: `{"ZEBRA":{…}}` then
 * `{"BGP":{…}}`), merged into daemon → its object.
 */
export function perDaemonJson(text: string): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' && depth++ === 0) start = i;
    else if (ch === '}' && --depth === 0) {
      const doc = JSON.parse(text.slice(start, i + 1)) as Record<string, unknown>;
      for (const [daemon, v] of Object.entries(doc)) out.set(daemon, asObject(v));
    }
  }
  if (depth !== 0 || inString) throw new Error('unterminated JSON object');
  return out;
}

const asObject = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** A JSON string or number as text; anything else never equals a line of the file. */
const scalar = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' ? String(v) : '\u0000';

interface Objects {
  /** `ip NAME` / `ipv6 NAME` → the file's lines of that list. */
  lists: Map<string, Set<string>>;
  /** Route-map name → the file's entries: `permit 10` → its lines. */
  maps: Map<string, Map<string, string[]>>;
  /** Touched contexts only a config dump shows. */
  dump: string[];
  /** The dump must be the whole running config (a touched object that only it can show gone). */
  fullDump: boolean;
}

function touchedObjects(expected: ParsedConfig, touched: ReadonlySet<string>): Objects {
  const o: Objects = { lists: new Map(), maps: new Map(), dump: [], fullDump: false };
  for (const key of touched) {
    const pl = PREFIX_LIST.exec(key);
    const rm = ROUTE_MAP_ENTRY.exec(key);
    if (pl) o.lists.set(`${pl[1]} ${pl[2]}`, new Set());
    else if (rm) o.maps.set(rm[1]!, new Map());
    else o.dump.push(key);
  }
  if (o.lists.size === 0 && o.maps.size === 0) return o;
  // One pass over the file collects every line of the touched lists and every entry of the touched maps.
  for (const [key, ctx] of expected) {
    if (ctx.keys.length !== 1) continue;
    const pl = PREFIX_LIST.exec(key);
    const rm = pl ? null : ROUTE_MAP_ENTRY.exec(key);
    if (pl) o.lists.get(`${pl[1]} ${pl[2]}`)?.add(key);
    else if (rm) o.maps.get(rm[1]!)?.set(`${rm[2]} ${rm[3]}`, ctx.lines);
  }
  const clauseOnly = (lines: string[]): boolean => lines.every((l) => /^(match|set) \S/.test(l));
  for (const [, lines] of o.lists) if (lines.size === 0) o.fullDump = true;
  for (const [, entries] of o.maps) if (![...entries.values()].every(clauseOnly)) o.fullDump = true;
  return o;
}

const norm = (s: string): string => s.trim().replace(/\s+/g, ' ');

/** A daemon's prefix-list object as the file's lines (`ip prefix-list NAME seq 5 permit P le 32`). */
function listLines(family: string, name: string, list: Record<string, unknown>): string[] {
  return asArray(list['entries']).map((raw) => {
    const e = asObject(raw);
    const ge = e['minimumPrefixLength'] !== undefined ? ` ge ${scalar(e['minimumPrefixLength'])}` : '';
    const le = e['maximumPrefixLength'] !== undefined ? ` le ${scalar(e['maximumPrefixLength'])}` : '';
    return `${family} prefix-list ${name} seq ${scalar(e['sequenceNumber'])} ${scalar(e['type'])} ${scalar(e['prefix'])}${ge}${le}`;
  });
}

function listMismatches(key: string, want: Set<string>, answer: string): string[] {
  const [family, name] = key.split(' ') as [string, string];
  const daemons = perDaemonJson(answer);
  if (!daemons.has(BGPD)) return [`${family} prefix-list ${name}: bgpd does not show it`];
  const out: string[] = [];
  for (const [daemon, lists] of daemons) {
    const has = new Set(listLines(family, name, asObject(lists[name])));
    const missing = [...want].filter((l) => !has.has(l));
    const extra = [...has].filter((l) => !want.has(l));
    if (missing.length + extra.length > 0)
      out.push(
        `${daemon} runs ${family} prefix-list ${name} without [${missing.join('; ')}], with [${extra.join('; ')}]`,
      );
  }
  return out;
}

/** The clauses a route-map line stands for, as `show route-map` prints them (`match ip address …`). */
const clauseOf = (line: string): string => norm(line);

function mapMismatches(name: string, want: Map<string, string[]>, answer: string): string[] {
  const daemons = perDaemonJson(answer);
  if (want.size > 0 && !asObject(daemons.get(BGPD))[name])
    return [`route-map ${name}: bgpd does not show it`];
  const out: string[] = [];
  const union = new Map<string, Set<string>>([...want.keys()].map((k) => [k, new Set<string>()]));
  for (const [daemon, maps] of daemons) {
    const rules = asArray(asObject(maps[name])['rules']).map(asObject);
    const held = new Set<string>();
    for (const r of rules) {
      const entry = `${scalar(r['type'])} ${scalar(r['sequenceNumber'])}`;
      held.add(entry);
      const lines = want.get(entry);
      if (!lines) {
        out.push(`${daemon} runs route-map ${name} ${entry}, the file has no such entry`);
        continue;
      }
      const clauses = [
        ...asArray(r['matchClauses']).map((c) => clauseOf(`match ${scalar(c)}`)),
        ...asArray(r['setClauses']).map((c) => clauseOf(`set ${scalar(c)}`)),
      ];
      const allowed = new Set(lines.map(clauseOf));
      const extra = clauses.filter((c) => !allowed.has(c));
      const plain = r['callClause'] === undefined && r['description'] === undefined;
      if (extra.length > 0 || !plain || (r['action'] !== undefined && r['action'] !== 'Exit routemap'))
        out.push(`${daemon} runs route-map ${name} ${entry} with [${extra.join('; ')}] or other options`);
      for (const c of clauses) union.get(entry)!.add(c);
    }
    for (const entry of want.keys())
      if (!held.has(entry)) out.push(`${daemon} runs route-map ${name} without entry ${entry}`);
  }
  for (const [entry, lines] of want) {
    const missing = lines.map(clauseOf).filter((c) => !union.get(entry)!.has(c));
    if (missing.length > 0) out.push(`route-map ${name} ${entry} lacks [${missing.join('; ')}]`);
  }
  return out;
}

/** The touched contexts FRR's config dump shows differently from the file. */
const dumpMismatches = (running: ParsedConfig, expected: ParsedConfig, touched: Iterable<string>): string[] =>
  touchedMismatches(running, expected, new Set(touched)).map(
    (c) => `${contextKey(c.keys)}${c.line !== undefined ? ` / ${c.line}` : ''} differs`,
  );

/**
 * The read-back of a change that touched `touched` (context keys) and should leave FRR running
 * `expected`. `parse` reads a config dump (config-text.ts's parseConfig).
 */
export function readBackFor(
  expected: ParsedConfig,
  touched: ReadonlySet<string>,
  parse: (text: string) => ParsedConfig,
): ReadBack {
  const o = touchedObjects(expected, touched);
  if (o.fullDump) {
    return {
      commands: ['show running-config'],
      mismatches: ([dump]) => dumpMismatches(parse(dump ?? ''), expected, touched),
    };
  }
  const lists = [...o.lists];
  const maps = [...o.maps];
  const commands = [
    ...lists.map(([key]) => `show ${key.replace(' ', ' prefix-list ')} json`),
    ...maps.map(([name]) => `show route-map ${name} json`),
    ...(o.dump.length > 0 ? ['show running-config bgpd'] : []),
  ];
  return {
    commands,
    mismatches: (answers) => {
      const at = (i: number): string => answers[i] ?? '';
      return [
        ...lists.flatMap(([key, want], i) => listMismatches(key, want, at(i))),
        ...maps.flatMap(([name, want], i) => mapMismatches(name, want, at(lists.length + i))),
        ...(o.dump.length > 0 ? dumpMismatches(parse(at(commands.length - 1)), expected, o.dump) : []),
      ];
    },
  };
}
