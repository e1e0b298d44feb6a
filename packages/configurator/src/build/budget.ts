/**
 * The size budget of a revision (pure): what the API server stores and what an agent can apply.
 * - `maxConfigBytes`: the JSON of a revision's `spec.config`. etcd refuses a request above its
 *   `--max-request-bytes` (1.5 MiB by default; kube-apiserver answers 500 "etcdserver: request is
 *   too large"), and the revision also carries metadata, `changedInputs` and a status, so the config
 *   gets the object limit minus a headroom. A NodeConfig carries a subset of the same config (the
 *   Layer-2 networks of its node), so the same figure bounds it.
 * - `maxFrrLines`: the FRR lines a node's config renders to. The agent runs each FRR step
 *   (`vtysh -C`, `frr-reload.py`) with a 60 s timeout; the default keeps a reload well inside it
 *   (measured: bench/frr-budget.ts, docs/rollout.md "Size budget").
 * Both are overridable per site (`--max-revision-bytes`, `--max-frr-lines`).
 */
import { MAX_ANYCAST_GATEWAYS, type NetworkConfig, type VrfEntry } from '@nodenet/api';
import { NODE_CONFIG_STATUS_MAX_BYTES } from './status-room.js';

export interface SizeBudget {
  /** Largest JSON size in bytes of a revision's `spec.config`. */
  maxConfigBytes: number;
  /** Most FRR lines the configuration may render to on a node. */
  maxFrrLines: number;
}

/** etcd's default `--max-request-bytes`: the largest object a default Kubernetes cluster stores. */
export const ETCD_OBJECT_LIMIT = 1_572_864;
/** Room in a revision for what is not `spec.config`: metadata, changedInputs, the status. */
export const REVISION_HEADROOM = 64 * 1024;

/**
 * The config's default budget: the object limit less the headroom and less the largest status an
 * agent can write into a NodeConfig (status-room.ts), which carries a subset of the same config:
 * spec + status always fit, whatever one agent reports (issue #37).
 */
export const DEFAULT_BUDGET: SizeBudget = {
  maxConfigBytes: ETCD_OBJECT_LIMIT - REVISION_HEADROOM - NODE_CONFIG_STATUS_MAX_BYTES,
  maxFrrLines: 20_000,
};

export interface BudgetExcess {
  /** What is measured, as a person reads it. */
  what: 'revision size' | 'FRR lines';
  figure: number;
  limit: number;
  /** The flag that sets the limit. */
  flag: string;
}

/** Byte length of the config's JSON (as the API server stores a custom resource). */
export const configBytes = (config: NetworkConfig): number => Buffer.byteLength(JSON.stringify(config));

/** The first limit the configuration crosses, if any (`bytes`: its configBytes, when known). */
export function budgetExcess(
  config: NetworkConfig,
  budget: SizeBudget,
  bytes = configBytes(config),
): BudgetExcess | undefined {
  if (bytes > budget.maxConfigBytes)
    return {
      what: 'revision size',
      figure: bytes,
      limit: budget.maxConfigBytes,
      flag: '--max-revision-bytes',
    };
  const lines = frrLines(config);
  if (lines > budget.maxFrrLines)
    return { what: 'FRR lines', figure: lines, limit: budget.maxFrrLines, flag: '--max-frr-lines' };
  return undefined;
}

export const describeExcess = (e: BudgetExcess): string =>
  e.what === 'revision size'
    ? `the revision would be ${e.figure} bytes, over the limit of ${e.limit} bytes (${e.flag})`
    : `the configuration would render ${e.figure} FRR lines on a node, over the limit of ${e.limit} (${e.flag})`;

/** Lines FRR sees per VRF besides its prefix-list lines, aggregates and route targets (agent/src/frr/render/sections.ts). */
const LINES_PER_VRF = 4 + 1 + 6 + 19;
/** Lines per routing table: `import vrf` twice and its BGP instance. */
const LINES_PER_TABLE = 2 + 12;
/**
 * A BGPPeering at most: peer-group and its settings (8), BFD profile (9), two families of
 * activate / route-maps / maximum-prefix (2 × 6), four route-maps of up to 5 lines, the `!`s.
 */
const LINES_PER_PEERING = 8 + 9 + 12 + 20 + 4;
/** The bootstrap template around the generated sections, for nodes no AgentConfiguration selects (a generous bound). */
const TEMPLATE_LINES = 200;

/** Lines of a template text (an upper bound of what it adds: its placeholders' lines count too). */
export const templateLines = (text: string): number => text.split('\n').length;

/** The template lines a node may get: the longest AgentConfiguration template, and the bootstrap one. */
function configTemplateLines(config: NetworkConfig): number {
  let lines = TEMPLATE_LINES;
  for (const a of config.agentConfig ?? []) lines = Math.max(lines, templateLines(a.frrTemplate));
  return lines;
}

/**
 * The FRR lines the agent renders for this configuration on a node, at most (layer-2 networks
 * render none; every VRF object counts as if it reached the node, each loopback with the node's
 * one address). Mirrors agent/src/frr/render/sections.ts; tests check it against the renderer.
 */
export function frrLines(config: NetworkConfig): number {
  const byVrf = new Map<string, VrfEntry[]>();
  for (const e of config.vrf) {
    const list = byVrf.get(e.vrf);
    if (list) list.push(e);
    else byVrf.set(e.vrf, [e]);
  }
  let lines =
    configTemplateLines(config) + LINES_PER_TABLE * new Set(config.routingTable.map((t) => t.tableId)).size;
  // The prefix-list lines of each family are closed by one `!`.
  const families = new Set<boolean>();
  for (const entries of byVrf.values()) lines += vrfLines(entries, families);
  for (const p of config.bgpPeering ?? []) {
    // Listen ranges come from the network's gateways (at most MAX_ANYCAST_GATEWAYS of them).
    const ranges = p.listenRange !== undefined ? MAX_ANYCAST_GATEWAYS : 0;
    lines +=
      LINES_PER_PEERING + p.import.length + p.export.length + (p.neighbor?.addresses.length ?? 0) + ranges;
  }
  return lines + families.size + (config.bgpPeering?.length ? 2 : 0);
}

/** The lines of one VRF (all its entries); adds the address families its prefix-lists use. */
function vrfLines(entries: readonly VrfEntry[], families: Set<boolean>): number {
  const aggregates = new Set<string>();
  const targets = new Set<string>();
  let lines = 0;
  for (const e of entries) {
    for (const a of e.aggregate ?? []) aggregates.add(a);
    if (e.routeTarget !== undefined) targets.add(e.routeTarget);
    // A static route is one line in the VRF's block; a loopback one `permit` line (the node's own
    // address) in the export prefix-list of its family.
    lines +=
      (e.import?.length ?? 0) +
      (e.export?.length ?? 0) +
      (e.staticRoutes?.length ?? 0) +
      (e.loopbacks?.length ?? 0);
    for (const i of [...(e.import ?? []), ...(e.export ?? [])]) families.add(i.cidr.includes(':'));
    for (const l of e.loopbacks ?? []) families.add(l.subnet.includes(':'));
  }
  lines += LINES_PER_VRF + aggregates.size + 2 * targets.size;
  for (const dir of ['import', 'export'] as const)
    for (const v6 of [false, true]) lines += routeMapLines(entries, dir, v6);
  return lines;
}

/** A route-map of one direction and family: an empty one renders a deny-all entry (3 lines); each entry 4, and its community 1. */
function routeMapLines(entries: readonly VrfEntry[], dir: 'import' | 'export', v6: boolean): number {
  const using = entries.filter(
    (e) =>
      (e[dir] ?? []).some((i) => i.cidr.includes(':') === v6) ||
      (dir === 'export' && (e.loopbacks ?? []).some((l) => l.subnet.includes(':') === v6)),
  );
  return using.length === 0
    ? 3
    : using.reduce((n, e) => n + 4 + (dir === 'export' && e.community ? 1 : 0), 0);
}
