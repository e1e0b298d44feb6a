/**
 * Who may touch the underlay (issue #37, invariant 15): the guards on BGPPeerings that need more than
 * the peering itself — the Layer-2 network it listens on, the nodes' addresses, the site's settings.
 * The underlay is the default VRF: there a peering needs the network's owner's or the site's
 * permission, its listen ranges and imports may not cover a node's address or a configured underlay
 * prefix, and the default route is imported only where explicitly allowed. In every VRF, a neighbour
 * may not be a node's own address (FRR on that node refuses it: an accepted input every agent can
 * not apply, invariant 10). Pure: the node addresses and settings come in as a value
 * (`UnderlayContext`), the configurator reads them from the Nodes' status and its flags.
 */
import type { BGPPeering, Layer2NetworkConfiguration } from '../resources/objects.js';
import {
  checkNetworkPrefix,
  normalizeAddress,
  normalizePrefix,
  parsePrefix,
  prefixesOverlap,
} from '../grammar/prefix.js';
import { OptionError } from '../errors.js';
import { problem, type Problem } from './problem.js';

const P = 'BGPPeering';

/** What validation knows about the underlay beyond the inputs. */
export interface UnderlayContext {
  /** Every managed Node's addresses (status.addresses, InternalIP and ExternalIP): address → Node name. */
  nodeAddresses?: ReadonlyMap<string, string>;
  /** Prefixes of the underlay (configurator `--underlay-cidr`), network form. */
  cidrs?: readonly string[];
  /** Site-wide: peerings may use the default VRF (configurator `--allow-default-vrf-peering`). */
  defaultVrfPeering?: boolean;
  /** Site-wide: peerings in the default VRF may import the default route (`--allow-default-route-import`). */
  defaultRouteImport?: boolean;
}

/**
 * The site's settings from the flags both the configurator and `kubectl nodenet diff` take:
 * `--underlay-cidr` (comma-separated prefixes, network form), `--allow-default-vrf-peering`,
 * `--allow-default-route-import`. A prefix that is no network is an OptionError naming it.
 */
export function siteUnderlayOf(raw: {
  underlayCidr?: string;
  allowDefaultVrfPeering?: boolean;
  allowDefaultRouteImport?: boolean;
}): Omit<UnderlayContext, 'nodeAddresses'> & { cidrs: string[] } {
  const cidrs = (raw.underlayCidr ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '')
    .map((c) => {
      const reason = checkNetworkPrefix(c);
      if (reason !== undefined) throw new OptionError('--underlay-cidr', c, reason);
      return normalizePrefix(c);
    });
  return {
    cidrs,
    ...(raw.allowDefaultVrfPeering === true ? { defaultVrfPeering: true } : {}),
    ...(raw.allowDefaultRouteImport === true ? { defaultRouteImport: true } : {}),
  };
}

/** Node addresses as validation wants them, from Node objects (canonical text → Node name). */
export function nodeAddressesOf(
  nodes: readonly {
    metadata: { name?: string };
    status?: { addresses?: { type: string; address: string }[] };
  }[],
): Map<string, string> {
  const out = new Map<string, string>();
  for (const n of nodes) {
    for (const a of n.status?.addresses ?? []) {
      if (a.type !== 'InternalIP' && a.type !== 'ExternalIP') continue;
      const p = parsePrefix(`${a.address}/${a.address.includes(':') ? 128 : 32}`);
      if (p.ok && !out.has(p.prefix.address)) out.set(p.prefix.address, n.metadata.name ?? '');
    }
  }
  return out;
}

const hostPrefix = (address: string): string => `${address}/${address.includes(':') ? 128 : 32}`;

/** What in `prefix` the underlay holds: a node's address inside it or an underlay prefix it overlaps. */
function underlayIn(prefix: string, u: UnderlayContext): string | undefined {
  for (const [address, node] of u.nodeAddresses ?? []) {
    if (prefixesOverlap(prefix, hostPrefix(address))) return `the address ${address} of Node ${node}`;
  }
  for (const cidr of u.cidrs ?? []) {
    if (prefixesOverlap(prefix, cidr)) return `the underlay prefix ${cidr} (--underlay-cidr)`;
  }
  return undefined;
}

const subnetOf = (gateway: string): string => {
  const p = parsePrefix(gateway);
  return p.ok ? `${p.prefix.network}/${p.prefix.length}` : gateway;
};

/** The guards over every well-formed peering, in the order given (blame order). */
export function underlayGuards(
  peerings: readonly BGPPeering[],
  layer2: readonly Layer2NetworkConfiguration[],
  u: UnderlayContext,
): Problem[] {
  return peerings.flatMap((o) => {
    const at = { kind: P, name: o.metadata.name } as const;
    const lr = o.spec.listenRange;
    const net = lr === undefined ? undefined : layer2.find((l) => l.metadata.name === lr.layer2);
    const out = notANode(at, o, u);
    // Neither or both modes: the peering's own rule says so. A listen range on a missing network or
    // one without gateways: peeringClaims does.
    if ((lr === undefined) === (o.spec.neighbor === undefined)) return out;
    if (lr !== undefined && (net?.spec.anycastGateways ?? []).length === 0) return out;
    const inDefault = lr !== undefined ? net?.spec.vrf === undefined : o.spec.neighbor?.vrf === undefined;
    if (!inDefault) return out;
    const closed = defaultVrfClosed(at, o, net, u);
    if (closed) return [...out, closed];
    return [...out, ...rangeGuards(at, o, net, u), ...importGuards(at, o, net, u)];
  });
}

interface At {
  kind: typeof P;
  name: string;
}

/** A neighbour may not be a node's own address, in any VRF. */
function notANode(at: At, o: BGPPeering, u: UnderlayContext): Problem[] {
  return (o.spec.neighbor?.addresses ?? []).flatMap((a, i) => {
    const node = u.nodeAddresses?.get(normalizeAddress(a));
    return node === undefined
      ? []
      : [
          problem(
            at,
            `spec.neighbor.addresses[${i}]`,
            a,
            `is the address of Node ${node}: a node can not peer with itself`,
          ),
        ];
  });
}

/** Why the default VRF is closed to this peering; undefined when its network or the site opened it. */
function defaultVrfClosed(
  at: At,
  o: BGPPeering,
  net: Layer2NetworkConfiguration | undefined,
  u: UnderlayContext,
): Problem | undefined {
  if (u.defaultVrfPeering === true) return undefined;
  const lr = o.spec.listenRange;
  if (lr === undefined)
    return problem(
      at,
      'spec.neighbor.vrf',
      undefined,
      "must name a VRF: peering in the default VRF (the underlay) needs the site's --allow-default-vrf-peering",
    );
  if (net?.spec.peering?.defaultVrf === true) return undefined;
  return problem(
    at,
    'spec.listenRange.layer2',
    lr.layer2,
    "is in the default VRF (the underlay): peering there needs the network's spec.peering.defaultVrf or the site's --allow-default-vrf-peering",
  );
}

/** The listen ranges (the network's gateway subnets) may not cover the underlay. */
function rangeGuards(
  at: At,
  o: BGPPeering,
  net: Layer2NetworkConfiguration | undefined,
  u: UnderlayContext,
): Problem[] {
  return (net?.spec.anycastGateways ?? []).flatMap((gateway) => {
    const range = subnetOf(gateway);
    const held = underlayIn(range, u);
    return held === undefined
      ? []
      : [
          problem(
            at,
            'spec.listenRange.layer2',
            o.spec.listenRange?.layer2,
            `listen range ${range} covers ${held}`,
          ),
        ];
  });
}

/** Imports into the default VRF: no default route unless allowed, nothing over the underlay. */
function importGuards(
  at: At,
  o: BGPPeering,
  net: Layer2NetworkConfiguration | undefined,
  u: UnderlayContext,
): Problem[] {
  const defaultRoute = net?.spec.peering?.defaultRoute === true || u.defaultRouteImport === true;
  return (o.spec.import ?? []).flatMap((item, i) => {
    if ((item.action ?? 'permit') !== 'permit') return [];
    const p = parsePrefix(item.cidr);
    if (!p.ok) return [];
    const field = `spec.import[${i}].cidr`;
    if (p.prefix.length === 0 && !defaultRoute)
      return [
        problem(
          at,
          field,
          item.cidr,
          "imports the default route into the default VRF: allowed only by the network's spec.peering.defaultRoute or the site's --allow-default-route-import",
        ),
      ];
    // The default route alone never takes a node's more specific routes.
    if (p.prefix.length === 0 && (item.le ?? 0) === 0) return [];
    const held = underlayIn(item.cidr, u);
    return held === undefined
      ? []
      : [problem(at, field, item.cidr, `accepts routes covering ${held} into the default VRF`)];
  });
}
