/**
 * The fast path of an apply: when the new file differs from the one FRR runs only inside nodenet's
 * own policy blocks, the change is sent as vtysh commands (one `vtysh` run) instead of through
 * frr-reload.py, which spawns python, reads the running config twice and runs one vtysh per deleted
 * line (~2 s for a one-line change). What it expresses, in the forms frr-reload.py uses:
 *  - prefix-list lines (top level): added as written; removed with `no <line>`. A line whose
 *    sequence number stays is replaced by the new one (FRR keys an entry by list and seq), so its
 *    `no` is left out (it would delete the replacement);
 *  - route-map entries: a new entry as its block, a removed one with `no route-map NAME ACTION SEQ`,
 *    a changed one by entering it, `no` for the lines that went, then the new lines;
 *  - `aggregate-address` and `route-target` lines inside an address-family of a `router bgp … vrf …`
 *    instance that stays.
 * Anything else (a VRF, a BGP instance or neighbor, the template's text) returns undefined: the
 * caller falls back to frr-reload.py. Order: prefix-lists and route-map entries are added before
 * the entries and lists they replace are removed, so a map in use never points at nothing. Pure.
 */
import {
  diffConfigs,
  parseConfig,
  type ConfigChange,
  type ConfigDiff,
  type ParsedConfig,
} from './config-text.js';

const PREFIX_LIST = /^(ip|ipv6) prefix-list (\S+) seq (\d+) /;
const ROUTE_MAP = /^route-map \S+ (permit|deny) \d+$/;
const VRF_BGP = /^router bgp \d+ vrf \S+$/;
const VRF_BGP_LINE = /^(aggregate-address|route-target (import|export)) /;

export interface FastPathPlan {
  /** `configure` commands for one vtysh run, from the top level (without `configure terminal`). */
  commands: string[];
  /** Context keys (`contextKey`) the commands touch: what the read-back compares. */
  touched: Set<string>;
}

type Kind = 'prefix-list' | 'route-map' | 'vrf-bgp';

function kindOf(c: ConfigChange, from: ParsedConfig, to: ParsedConfig): Kind | undefined {
  const [top] = c.keys;
  if (c.keys.length === 1 && c.line === undefined && PREFIX_LIST.test(top!)) return 'prefix-list';
  if (c.keys.length === 1 && ROUTE_MAP.test(top!)) return 'route-map';
  // A line inside an address-family of a VRF instance both files have.
  if (
    c.keys.length === 2 &&
    c.line !== undefined &&
    VRF_BGP.test(top!) &&
    c.keys[1]!.startsWith('address-family ') &&
    VRF_BGP_LINE.test(c.line) &&
    from.has(top!) &&
    to.has(top!)
  )
    return 'vrf-bgp';
  return undefined;
}

const seqKey = (line: string): string | undefined => {
  const m = PREFIX_LIST.exec(line);
  return m ? `${m[1]} ${m[2]} ${m[3]}` : undefined;
};

/** Enter `keys`, run `body`, leave again (one `exit` per level). */
const inContext = (keys: readonly string[], body: string[]): string[] => [
  ...keys,
  ...body,
  ...keys.map(() => 'exit'),
];

/** The commands that turn FRR running `fromText` into `toText`, or undefined when they cannot be expressed. */
export function fastPathPlan(fromText: string, toText: string): FastPathPlan | undefined {
  return fastPathPlanOf(parseConfig(fromText), parseConfig(toText));
}

/**
 * `fastPathPlan` of parsed texts (the driver keeps the parse of the text FRR runs); `diff` when the
 * caller has it already (config-edit.ts).
 */
export function fastPathPlanOf(
  from: ParsedConfig,
  to: ParsedConfig,
  diff: ConfigDiff = diffConfigs(from, to),
): FastPathPlan | undefined {
  const all = [...diff.toAdd, ...diff.toDelete];
  if (all.some((c) => kindOf(c, from, to) === undefined)) return undefined;
  if (all.length === 0) return { commands: [], touched: new Set() };

  const touched = new Set<string>();
  const adds: string[] = [];
  const removes: string[] = [];
  // Lines added and removed per context, for the contexts that stay (route-map entries, VRF instances).
  const edits = new Map<string, { keys: readonly string[]; add: string[]; del: string[] }>();
  const edit = (keys: readonly string[]) => {
    const k = keys.join('\n');
    let e = edits.get(k);
    if (!e) edits.set(k, (e = { keys, add: [], del: [] }));
    return e;
  };
  const replaced = new Set(diff.toAdd.map((c) => seqKey(c.keys[0]!)).filter((k) => k !== undefined));

  for (const c of diff.toAdd) {
    touched.add(c.keys.join('\n'));
    if (c.line !== undefined) edit(c.keys).add.push(c.line);
    else if (c.keys.length === 1 && PREFIX_LIST.test(c.keys[0]!)) adds.push(c.keys[0]!);
    else adds.push(...inContext(c.keys, to.get(c.keys[0]!)!.lines));
  }
  for (const c of diff.toDelete) {
    touched.add(c.keys.join('\n'));
    if (c.line !== undefined) edit(c.keys).del.push(c.line);
    else if (!replaced.has(seqKey(c.keys[0]!) ?? '')) removes.push(`no ${c.keys[0]!}`);
  }
  const edited = [...edits.values()].flatMap((e) =>
    inContext(e.keys, [...e.del.map((l) => `no ${l}`), ...e.add]),
  );
  return { commands: [...adds, ...edited, ...removes], touched };
}

/**
 * What FRR runs differently from `expected` in the contexts `touched` (empty: the change took).
 * Items as `describeChange` prints them.
 */
export function touchedMismatches(
  running: ParsedConfig,
  expected: ParsedConfig,
  touched: ReadonlySet<string>,
): ConfigChange[] {
  const pick = (p: ParsedConfig): ParsedConfig =>
    new Map([...touched].filter((k) => p.has(k)).map((k) => [k, p.get(k)!]));
  const d = diffConfigs(pick(running), pick(expected));
  return [...d.toAdd, ...d.toDelete];
}
