/**
 * The host plan of one node (pure): what the agent will do to a host converged on the `previous`
 * NodeConfig spec when it is handed `next`, computed by the agent's own code: the netlink model,
 * `desiredModel` → `diff` → `holdL3Vnis` as the netlink driver runs them, and `renderFrrConfig`
 * → `diffConfigs` / `fastPathPlanOf` as the FRR driver applies the change. Each step carries its
 * disruption class (disruption.ts). The template is a parameter: the caller says which one the
 * node runs with.
 *
 * A host converged on `previous` is one whose devices are `previous`'s desired model and whose VRF
 * tables are the ones `previous` allocated: what `diff` then finds is what the agent runs, unless
 * someone changed the host by hand (drift, which the agent repairs too, but no preview can see).
 */
import ipaddr from 'ipaddr.js';
import {
  contextKey,
  diffConfigs,
  describeChange,
  parseConfig,
  type ParsedConfig,
  fastPathPlanOf,
  redactPasswords,
} from '../frr/text/index.js';
import { renderFrrConfig, parseTemplate, type FrrTemplate, FrrRenderError } from '../frr/render/index.js';
import { DesiredStateError } from '../netlink/index.js';
import { netlinkSteps } from './netlink-steps.js';
import type {
  FrrStep,
  HostPlan,
  HostPlanInput,
  HostSpec,
  NetlinkStep,
  ProtectedAddress,
} from './plan-types.js';
import { frrChangeClass, neighborOf, routeMapOf, worstClass, type FrrChangeContext } from './disruption.js';

const EMPTY: HostSpec = { vrf: [], layer2: [], routingTable: [] };

/**
 * The plan of one node. A spec the agent would refuse (a device name clash, a value outside FRR's
 * grammar) gives a plan with `error` and no steps: the agent reports it invalid and changes nothing.
 * A bad template throws FrrTemplateError: it is the caller's input, not the node's.
 */
export function hostPlan(input: HostPlanInput): HostPlan {
  if (typeof input.template === 'string') input = { ...input, template: parseTemplate(input.template) };
  try {
    return planOf(input);
  } catch (err) {
    if (!(err instanceof DesiredStateError || err instanceof FrrRenderError)) throw err;
    const empty = {
      netlink: [],
      upAfterFrr: [],
      frr: { path: 'unchanged' as const, steps: [] },
      warnings: [],
    };
    return { ...empty, disruption: 'none', error: err.message };
  }
}

function planOf(input: HostPlanInput): HostPlan {
  const previous = input.previous ?? EMPTY;
  const { netlink, upAfterFrr } = netlinkSteps(previous, input.next, input.settings.host);
  const frr = frrSteps(previous, input.next, input);
  const warnings = protectedWarnings(netlink, input.protectedAddresses ?? []);
  const disruption = worstClass([...netlink.map((s) => s.class), ...frr.steps.map((s) => s.class)]);
  return { netlink, upAfterFrr, frr, warnings, disruption };
}

// ---------------------------------------------------------------- FRR

/**
 * BGP passwords (issue 41): a plan never reads Secrets, and never shows a value. Each revision hash
 * stands for its own value, so a rotation shows as a changed `password` line, printed `<redacted>`.
 */
const passwordStandIn = (hash: string): string => `standin-${hash.slice(-16)}`;

/** Parsed templates by text: the few AgentConfigurations of a fleet, parsed once each. */
const specTemplates = new Map<string, FrrTemplate>();

/** The template a spec renders with: its AgentConfiguration's (issue #36), else (or when overridden) the caller's. */
function templateOf(spec: HostSpec, input: HostPlanInput): FrrTemplate {
  const text = spec.agent?.frrTemplate;
  if (text === undefined || input.templateOverride === true) return input.template as FrrTemplate;
  let t = specTemplates.get(text);
  if (!t) {
    if (specTemplates.size >= 16) specTemplates.clear();
    specTemplates.set(text, (t = parseTemplate(text)));
  }
  return t;
}

function frrSteps(previous: HostSpec, next: HostSpec, input: HostPlanInput): HostPlan['frr'] {
  const settings = { ...input.settings.frr, passwords: passwordStandIn };
  const from = parseConfig(renderFrrConfig(previous, settings, templateOf(previous, input)));
  const to = parseConfig(renderFrrConfig(next, settings, templateOf(next, input)));
  const d = diffConfigs(from, to);
  if (d.toAdd.length + d.toDelete.length === 0) return { path: 'unchanged', steps: [] };
  const ctx = changeContext(from);
  const step = (c: (typeof d.toAdd)[number], removed: boolean): FrrStep => ({
    change: removed ? 'remove' : 'add',
    context: [...c.keys],
    ...(c.line !== undefined
      ? { line: redactPasswords(c.line) }
      : { lines: [...((removed ? from : to).get(contextKey(c.keys))?.lines ?? [])].map(redactPasswords) }),
    class: frrChangeClass(c, removed, ctx),
  });
  return {
    path: fastPathPlanOf(from, to, d) ? 'fast-path' : 'frr-reload.py',
    steps: [...d.toDelete.map((c) => step(c, true)), ...d.toAdd.map((c) => step(c, false))],
  };
}

/** The neighbors of each `router bgp` instance and the route-maps of the running config. */
function changeContext(running: ParsedConfig): FrrChangeContext {
  const neighborsBefore = new Map<string, Set<string>>();
  const routeMapsBefore = new Set<string>();
  for (const ctx of running.values()) {
    const top = ctx.keys[0]!;
    const map = routeMapOf(top);
    if (map !== undefined) routeMapsBefore.add(map);
    if (!top.startsWith('router bgp ')) continue;
    let set = neighborsBefore.get(top);
    if (!set) neighborsBefore.set(top, (set = new Set()));
    for (const line of ctx.lines) {
      const n = neighborOf(line);
      if (n !== undefined) set.add(n);
    }
  }
  return { neighborsBefore, routeMapsBefore };
}

/** An FRR step as a diff line: `- router bgp 65000 / neighbor pp_router remote-as 65010`. */
export function frrStepText(s: FrrStep): string {
  const change = { keys: s.context, ...(s.line !== undefined ? { line: s.line } : {}) };
  return `${s.change === 'add' ? '+' : '-'} ${describeChange(change, false)}`;
}

// ---------------------------------------------------------------- protected addresses

/** An address added on a device that is, or covers, an address the node must keep reaching. */
function protectedWarnings(steps: readonly NetlinkStep[], guarded: readonly ProtectedAddress[]): string[] {
  if (guarded.length === 0) return [];
  const out: string[] = [];
  for (const s of steps) {
    if (s.operation.op !== 'addAddress') continue;
    const { device, address } = s.operation;
    const [net, len] = ipaddr.parseCIDR(address);
    for (const g of guarded) {
      let addr: ipaddr.IPv4 | ipaddr.IPv6;
      try {
        addr = ipaddr.parse(g.address);
      } catch {
        continue;
      }
      if (addr.kind() !== net.kind()) continue;
      if (net.toString() === addr.toString()) {
        out.push(
          `${device} takes ${address}, the address of ${g.what}: this node answers for it itself and no longer reaches it`,
        );
      } else if (addr.match(net, len)) {
        out.push(
          `${device} gets ${address}, whose subnet holds ${g.address} (${g.what}): this node sends that traffic to ${device}`,
        );
      }
    }
  }
  return out;
}
