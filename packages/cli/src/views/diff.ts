/**
 * `kubectl nodenet diff`: what a change does to each node (pure). Both sides go through
 * `nodeConfigSpec` of @nodenet/api, the function that builds the NodeConfig a node receives, so the
 * preview shows exactly what the configurator would hand each node; the merged configurations carry
 * the Layer-2 node selectors, which name the cause when a network appears on or leaves a node.
 */
import {
  canonicalJson,
  matchesSelector,
  nodeConfigSpec,
  selectorText,
  type LabelSelector,
  type Layer2Entry,
  type NetworkConfig,
  type StaticRoute,
  shortHash,
} from '@nodenet/api';

export interface DiffSide {
  /** What the side is, for people: a revision name or "current inputs". */
  label: string;
  config: NetworkConfig;
  hash: string;
}

export type ChangeKind = 'added' | 'removed' | 'changed';
export type Section = 'VRF' | 'Layer2' | 'RoutingTable' | 'BGPPeering' | 'AgentConfiguration';

export interface Change {
  section: Section;
  /** Name of the input object the entry came from. */
  name: string;
  change: ChangeKind;
  /** For `changed`: the fields that differ. */
  fields?: string[];
  /**
   * For `changed`: each differing field's old and new value, as short text; for an added or removed
   * VRF: its loopback address on the node and its static routes (from or to `(unset)`).
   */
  values?: { field: string; from: string; to: string }[];
  /** Why the entry changes on this node (for Layer-2 networks, the node selector that decided). */
  cause: string;
}

export interface NodeDiff {
  node: string;
  changes: Change[];
}

export interface DiffResult {
  from?: { label: string; hash: string };
  to: { label: string; hash: string };
  nodes: NodeDiff[];
  changedNodes: number;
  /** Entries of the TO side whose node selector matches none of the nodes (a typo in a label?). */
  selectsNoNode: string[];
}

export function diffNodes(
  from: DiffSide | undefined,
  to: DiffSide,
  nodes: readonly { name: string; labels: Record<string, string> }[],
): DiffResult {
  const empty: NetworkConfig = { vrf: [], layer2: [], routingTable: [] };
  const fromSide = from ?? { label: '(nothing)', config: empty, hash: '' };
  const oldL2 = new Map(fromSide.config.layer2.map((e) => [e.name, e]));
  const newL2 = new Map(to.config.layer2.map((e) => [e.name, e]));
  const oldVrf = new Map(fromSide.config.vrf.map((e) => [e.name, e]));
  const newVrf = new Map(to.config.vrf.map((e) => [e.name, e]));
  const result = [...nodes]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, labels }) => {
      const a = nodeConfigSpec(fromSide, labels, name);
      const b = nodeConfigSpec(to, labels, name);
      const changes = [
        ...diffSection('VRF', a.vrf, b.vrf, (n, kind) =>
          vrfCause(oldVrf.get(n), newVrf.get(n), labels, kind),
        ),
        ...diffSection('Layer2', a.layer2, b.layer2, (n, kind) =>
          layer2Cause(oldL2.get(n), newL2.get(n), labels, kind),
        ),
        ...diffSection('RoutingTable', a.routingTable, b.routingTable, (_n, kind) =>
          kind === 'added' ? 'new RoutingTable' : kind === 'removed' ? 'RoutingTable deleted' : '',
        ),
        // A peering reaches a node where its selector, its network's and its VRF's all select it.
        ...diffSection('BGPPeering', a.bgpPeering ?? [], b.bgpPeering ?? [], (_n, kind) =>
          kind === 'added'
            ? 'BGPPeering reaches this node'
            : kind === 'removed'
              ? 'BGPPeering no longer reaches this node'
              : '',
        ),
        // The FRR base template and health checks this node's agent uses (issue #36).
        ...diffSection(
          'AgentConfiguration',
          a.agent ? [a.agent] : [],
          b.agent ? [b.agent] : [],
          (_n, kind) =>
            kind === 'added'
              ? 'selects this node (was: the agent bootstrap template)'
              : kind === 'removed'
                ? 'no longer selects this node (the agent bootstrap template)'
                : '',
        ),
      ];
      return { node: name, changes };
    });
  return {
    ...(from ? { from: { label: from.label, hash: from.hash } } : {}),
    to: { label: to.label, hash: to.hash },
    nodes: result,
    changedNodes: result.filter((n) => n.changes.length > 0).length,
    selectsNoNode: to.config.layer2
      .filter((e) => e.nodeSelector && !nodes.some((n) => matchesSelector(e.nodeSelector, n.labels)))
      .map((e) => `Layer2 ${e.name}: nodeSelector ${selectorText(e.nodeSelector)} matches no node`),
  };
}

function diffSection<T extends { name: string }>(
  section: Section,
  before: readonly T[],
  after: readonly T[],
  cause: (name: string, kind: ChangeKind) => string,
): Change[] {
  const old = new Map(before.map((e) => [e.name, e]));
  const now = new Map(after.map((e) => [e.name, e]));
  const names = [...new Set([...old.keys(), ...now.keys()])].sort();
  const out: Change[] = [];
  for (const name of names) {
    const a = old.get(name);
    const b = now.get(name);
    if (a && !b)
      out.push({ section, name, change: 'removed', ...details(a, 'from'), cause: cause(name, 'removed') });
    else if (!a && b)
      out.push({ section, name, change: 'added', ...details(b, 'to'), cause: cause(name, 'added') });
    else if (a && b) {
      const fields = changedFields(a, b);
      if (fields.length > 0)
        out.push({
          section,
          name,
          change: 'changed',
          fields,
          values: fields.map((field) => {
            const [from, to] = [(a as Record<string, unknown>)[field], (b as Record<string, unknown>)[field]];
            if (field === 'frrTemplate' && typeof from === 'string' && typeof to === 'string')
              return { field, ...templateChange(from, to) };
            return { field, from: fieldText(field, from), to: fieldText(field, to) };
          }),
          cause: cause(name, 'changed'),
        });
    }
  }
  return out;
}

/** Fields an added or removed entry shows with it: what a node gains or loses beyond the name. */
const DETAIL_FIELDS = ['loopbackAddresses', 'staticRoutes'] as const;

/**
 * An added (`to`) or removed (`from`) entry's per-node details: a new VRF's loopback address on
 * this node and its static routes, as a changed entry shows them.
 */
function details(e: object, side: 'from' | 'to'): Pick<Change, 'values'> {
  const r = e as Record<string, unknown>;
  const values = DETAIL_FIELDS.filter((f) => Array.isArray(r[f]) && (r[f] as unknown[]).length > 0).map(
    (field) => {
      const text = fieldText(field, r[field]);
      return side === 'to' ? { field, from: '(unset)', to: text } : { field, from: text, to: '(unset)' };
    },
  );
  return values.length > 0 ? { values } : {};
}

/**
 * A VRF's loopback addresses and static routes as a person reads them (`lo=10.255.0.2`,
 * `10.50.0.0/16 via 10.10.0.9 onlink`), other fields as shortValue.
 */
function fieldText(field: string, v: unknown): string {
  if (field === 'loopbackAddresses' && Array.isArray(v))
    return (
      (v as { name: string; address: string }[]).map((l) => `${l.name}=${l.address}`).join(',') || '(none)'
    );
  if (field === 'staticRoutes' && Array.isArray(v))
    return (v as StaticRoute[]).map(routeText).join('; ') || '(none)';
  return shortValue(v);
}

/**
 * A template change as the lines that went and came (each side's lines the other lacks), so a
 * person sees `- neighbor fabric bfd` / `+ shutdown` rather than two cut-off texts.
 */
function templateChange(from: string, to: string): { from: string; to: string } {
  const a = from.split('\n');
  const b = to.split('\n');
  const only = (xs: string[], ys: string[]): string => {
    const rest = new Set(ys);
    const lines = xs.filter((l) => !rest.has(l)).map((l) => JSON.stringify(l.trim()));
    return lines.length === 0 ? '(no line)' : shortValue(lines.join(' '));
  };
  return { from: only(a, b), to: only(b, a) };
}

const routeText = (r: StaticRoute): string =>
  `${r.prefix} via ${[r.nextHop, r.nextHopVRF && `vrf ${r.nextHopVRF}`, r.onlink && 'onlink'].filter(Boolean).join(' ')}`;

/** A value as a person reads it in one line: JSON, cut to 60 characters. */
function shortValue(v: unknown): string {
  if (v === undefined) return '(unset)';
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function changedFields(a: object, b: object): string[] {
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return [...new Set([...Object.keys(ra), ...Object.keys(rb)])]
    .filter((k) => canonicalJson(ra[k] ?? null) !== canonicalJson(rb[k] ?? null))
    .sort();
}

function layer2Cause(
  before: Layer2Entry | undefined,
  after: Layer2Entry | undefined,
  labels: Record<string, string>,
  kind: ChangeKind,
): string {
  if (kind === 'changed') return after?.nodeSelector ? `selected by ${selectorText(after.nodeSelector)}` : '';
  if (kind === 'added') {
    if (!before)
      return after?.nodeSelector
        ? `new network; ${selectorText(after.nodeSelector)} selects this node`
        : 'new network for every node';
    return `nodeSelector changed from ${selectorText(before.nodeSelector)} to ${selectorText(after?.nodeSelector)}: now selects this node`;
  }
  if (!after) return 'network deleted';
  if (!matchesSelector(after.nodeSelector, labels))
    return `nodeSelector changed from ${selectorText(before?.nodeSelector)} to ${selectorText(after.nodeSelector)}: no longer selects this node`;
  return '';
}

/** Why a VRF entry comes to or leaves a node: the object itself, or its node selector. */
function vrfCause(
  before: { nodeSelector?: LabelSelector } | undefined,
  after: { nodeSelector?: LabelSelector } | undefined,
  labels: Record<string, string>,
  kind: ChangeKind,
): string {
  if (kind === 'changed') return '';
  if (kind === 'added')
    return before
      ? `nodeSelector changed from ${selectorText(before.nodeSelector)} to ${selectorText(after?.nodeSelector)}: now selects this node`
      : 'new VRFRouteConfiguration';
  if (after && !matchesSelector(after.nodeSelector, labels))
    return `nodeSelector changed from ${selectorText(before?.nodeSelector)} to ${selectorText(after.nodeSelector)}: no longer selects this node`;
  return 'VRFRouteConfiguration deleted';
}

const SIGN: Record<ChangeKind, string> = { added: '+', removed: '-', changed: '~' };

export function renderDiff(d: DiffResult): string {
  const out: string[] = [];
  out.push(`From: ${d.from ? `${d.from.label} (${shortHash(d.from.hash)})` : '(no revision yet)'}`);
  out.push(`To:   ${d.to.label} (${shortHash(d.to.hash)})`);
  out.push(`${d.changedNodes} of ${d.nodes.length} nodes change.`);
  const nameWidth = Math.max(0, ...d.nodes.flatMap((n) => n.changes.map((c) => c.name.length)));
  for (const n of d.nodes) {
    if (n.changes.length === 0) continue;
    out.push('', n.node);
    for (const c of n.changes) {
      const what =
        c.change === 'changed'
          ? `changed: ${(c.values ?? []).map((v) => `${v.field} ${v.from} → ${v.to}`).join(', ')}`
          : c.values
            ? `${c.change}: ${c.values.map((v) => `${v.field} ${c.change === 'added' ? v.to : v.from}`).join(', ')}`
            : c.change;
      const why = c.cause ? `  (${c.cause})` : '';
      out.push(`  ${SIGN[c.change]} ${c.section.padEnd(12)} ${c.name.padEnd(nameWidth)}  ${what}${why}`);
    }
  }
  const unchanged = d.nodes.filter((n) => n.changes.length === 0).map((n) => n.node);
  if (unchanged.length > 0) out.push('', `Unchanged: ${unchanged.join(', ')}`);
  for (const w of d.selectsNoNode) out.push('', `Warning: ${w}`);
  return out.join('\n') + '\n';
}
