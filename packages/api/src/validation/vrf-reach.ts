/**
 * Rules across objects about where a VRF reaches and what lives in it:
 * - a Layer-2 network in a VRF must not reach a node the VRF does not: its node selector must imply
 *   the selector of one of the VRF's objects (`selectorImplies`: a structural check, decided from the
 *   selectors' text, so the answer does not change when nodes or their labels do);
 * - a static route's prefix must not lie inside a gateway subnet of its VRF (it would be a longer
 *   match than the node's own connected route; a supernet such as a default route is fine), and its next hop must lie in a gateway subnet of the VRF it is looked up in, unless
 *   `onlink`; `nextHopVRF` names `default` or a VRF some object defines;
 * - loopback subnets of one VRF overlap neither each other nor the VRF's gateway subnets (an address
 *   is never handed out twice, and never shadows a subnet).
 */
import type { Layer2NetworkConfiguration, VRFRouteConfiguration } from '../resources/objects.js';
import { normalizePrefix, parsePrefix, prefixesOverlap } from '../grammar/prefix.js';
import type { LabelSelector } from '../resources/schema.js';
import { selectorImplies, selectorText } from '../config/selector.js';
import { parseAddress } from './vrf-extras-rules.js';
import { problem, type Problem } from './problem.js';

interface ReachInputs {
  vrfs: VRFRouteConfiguration[];
  l2s: Layer2NetworkConfiguration[];
}

/** The VRF name `nextHopVRF: default` and Layer-2 networks without `vrf` stand for. */
export const DEFAULT_VRF = 'default';

/**
 * Why an object limited to `selector` can reach nodes VRF `vrf` does not, or undefined: its selector
 * implies the selector of one of the VRF's objects (or no valid object defines the VRF: that is
 * reported elsewhere). Shared by Layer-2 networks and BGPPeerings (bgp-peering-rules.ts).
 */
export function outsideVrf(
  selector: LabelSelector | undefined,
  vrf: string,
  vrfs: readonly VRFRouteConfiguration[],
): string | undefined {
  return outsideObjects(
    selector,
    vrf,
    vrfs.filter((v) => v.spec.vrf === vrf),
  );
}

/** outsideVrf with the VRF's objects already picked out (`mine`). */
function outsideObjects(
  selector: LabelSelector | undefined,
  vrf: string,
  mine: readonly VRFRouteConfiguration[],
): string | undefined {
  if (mine.length === 0 || mine.some((v) => selectorImplies(selector, v.spec.nodeSelector))) return undefined;
  const theirs = mine.map(
    (v) => `VRFRouteConfiguration ${v.metadata.name}: ${selectorText(v.spec.nodeSelector)}`,
  );
  return `can reach nodes VRF ${vrf} does not: it must include every matchLabels entry and matchExpressions requirement of the nodeSelector of one of the VRF's objects (${theirs.join('; ')})`;
}

const layer2WithinVrf = ({ vrfs, l2s }: ReachInputs): Problem[] => {
  const out: Problem[] = [];
  // The objects of each VRF once, not a scan of every VRF object per network.
  const byVrf = groupBy(vrfs, (v) => v.spec.vrf);
  for (const o of l2s) {
    if (o.spec.vrf === undefined) continue;
    const why = outsideObjects(o.spec.nodeSelector, o.spec.vrf, byVrf.get(o.spec.vrf) ?? []);
    if (why)
      out.push(
        problem(
          { kind: 'Layer2NetworkConfiguration', name: o.metadata.name },
          'spec.nodeSelector',
          o.spec.nodeSelector,
          why,
        ),
      );
  }
  return out;
};

/** Gateway subnets per VRF (`default` for networks without one), with the network that holds each. */
function gatewaySubnets(
  l2s: readonly Layer2NetworkConfiguration[],
): Map<string, { subnet: string; holder: string }[]> {
  const out = new Map<string, { subnet: string; holder: string }[]>();
  for (const o of l2s) {
    for (const gw of o.spec.anycastGateways ?? []) {
      const p = parsePrefix(gw);
      if (!p.ok) continue;
      const vrf = o.spec.vrf ?? DEFAULT_VRF;
      const list = out.get(vrf);
      const entry = { subnet: `${p.prefix.network}/${p.prefix.length}`, holder: o.metadata.name };
      if (list) list.push(entry);
      else out.set(vrf, [entry]);
    }
  }
  return out;
}

function groupBy<T>(items: readonly T[], keyOf: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) {
    const list = out.get(keyOf(t));
    if (list) list.push(t);
    else out.set(keyOf(t), [t]);
  }
  return out;
}

const lengthOf = (prefix: string): number => {
  const p = parsePrefix(prefix);
  return p.ok ? p.prefix.length : 0;
};

const staticRouteClaims = ({ vrfs, l2s }: ReachInputs): Problem[] => {
  const out: Problem[] = [];
  const subnets = gatewaySubnets(l2s);
  const defined = new Set(vrfs.map((v) => v.spec.vrf));
  for (const o of vrfs) {
    const add = (field: string, value: unknown, reason: string): number =>
      out.push(problem({ kind: 'VRFRouteConfiguration', name: o.metadata.name }, field, value, reason));
    (o.spec.staticRoutes ?? []).forEach((r, i) => {
      const at = `spec.staticRoutes[${i}]`;
      const own = subnets.get(o.spec.vrf) ?? [];
      // A shorter prefix (a default route) leaves the subnet's connected route the longest match.
      const clash = own.find(
        (g) => prefixesOverlap(g.subnet, r.prefix) && lengthOf(r.prefix) >= lengthOf(g.subnet),
      );
      if (clash)
        add(
          `${at}.prefix`,
          r.prefix,
          `lies inside gateway subnet ${clash.subnet} of Layer2NetworkConfiguration ${clash.holder} in VRF ${o.spec.vrf}: it would take traffic from the node's own connected route`,
        );
      const lookup = r.nextHopVRF ?? o.spec.vrf;
      if (lookup !== DEFAULT_VRF && !defined.has(lookup)) {
        add(
          `${at}.nextHopVRF`,
          r.nextHopVRF,
          `names a VRF that no VRFRouteConfiguration defines (or "${DEFAULT_VRF}")`,
        );
        return;
      }
      if (r.nextHop === undefined || r.onlink === true || 'reason' in parseAddress(r.nextHop)) return;
      const host = normalizePrefix(`${r.nextHop}/${r.nextHop.includes(':') ? 128 : 32}`);
      const there = subnets.get(lookup) ?? [];
      if (!there.some((g) => prefixesOverlap(g.subnet, host))) {
        const list = there.length > 0 ? there.map((g) => g.subnet).join(', ') : 'none';
        add(
          `${at}.nextHop`,
          r.nextHop,
          `is in no gateway subnet of ${lookup === DEFAULT_VRF ? 'the default VRF' : `VRF ${lookup}`} (${list}); set onlink: true if it is reachable on a link anyway`,
        );
      }
    });
  }
  return out;
};

const loopbackClaims = ({ vrfs, l2s }: ReachInputs): Problem[] => {
  const out: Problem[] = [];
  const subnets = gatewaySubnets(l2s);
  const held = new Map<string, { subnet: string; holder: string }[]>();
  for (const o of vrfs) {
    const mine = held.get(o.spec.vrf) ?? [];
    held.set(o.spec.vrf, mine);
    (o.spec.loopbacks ?? []).forEach((l, i) => {
      if (!parsePrefix(l.subnet).ok) return;
      const gw = (subnets.get(o.spec.vrf) ?? []).find((g) => prefixesOverlap(g.subnet, l.subnet));
      const other = mine.find((m) => m.holder !== o.metadata.name && prefixesOverlap(m.subnet, l.subnet));
      const clash = gw
        ? `gateway subnet ${gw.subnet} of Layer2NetworkConfiguration ${gw.holder}`
        : other && `loopback subnet ${other.subnet} of VRFRouteConfiguration ${other.holder}`;
      if (clash)
        out.push(
          problem(
            { kind: 'VRFRouteConfiguration', name: o.metadata.name },
            `spec.loopbacks[${i}].subnet`,
            l.subnet,
            `overlaps ${clash} in VRF ${o.spec.vrf}`,
          ),
        );
      else mine.push({ subnet: l.subnet, holder: o.metadata.name });
    });
  }
  return out;
};

export const VRF_REACH_RULES = [layer2WithinVrf, staticRouteClaims, loopbackClaims];
