/**
 * How disruptive one step of a host plan is (pure). The classes, mildest first, and why each step
 * lands where it does, are the table in docs/operations.md ("How disruptive a change is"); this
 * module is that table. A step the table does not know counts as `session-reset`: a preview that
 * under-states a change is worse than one that over-states it.
 */
import type { ConfigChange } from '../frr/text/index.js';
import type { Operation } from '../netlink/index.js';

import { DISRUPTION_CLASSES, type DisruptionClass } from '@nodenet/api';

export { DISRUPTION_CLASSES, type DisruptionClass };

const RANK: Record<DisruptionClass, number> = {
  none: 0,
  refilter: 1,
  'session-reset': 2,
  'l2-interruption': 3,
  'vrf-rebuild': 4,
};

/** The worse of the classes (`none` for none). */
export function worstClass(classes: Iterable<DisruptionClass>): DisruptionClass {
  let worst: DisruptionClass = 'none';
  for (const c of classes) if (RANK[c] > RANK[worst]) worst = c;
  return worst;
}

/** Whether `c` is at least as disruptive as `floor`. */
export const atLeast = (c: DisruptionClass, floor: DisruptionClass): boolean => RANK[c] >= RANK[floor];

/** The devices of a VRF's L3 VNI and its link to the default VRF: what re-creating rebuilds the VRF. */
export interface VrfDevices {
  /** Names of the devices that belong to a VRF itself (vr.*, br.*, vx.<vrf>, vd.*, dv.*, taas.*). */
  has(device: string): boolean;
}

/** The class of one netlink operation of the agent's diff. */
export function operationClass(op: Operation, vrfDevices: VrfDevices): DisruptionClass {
  switch (op.op) {
    case 'create':
    case 'adopt':
    case 'addAddress':
    case 'port':
    case 'up':
      // A new device nobody uses yet, an address added, a port option, a link coming up.
      return 'none';
    case 'recreate':
      return op.device.kind === 'vrf' || vrfDevices.has(op.device.name) ? 'vrf-rebuild' : 'l2-interruption';
    case 'delete':
      return op.kind === 'vrf' || vrfDevices.has(op.device) ? 'vrf-rebuild' : 'l2-interruption';
    case 'set':
      // MTU and VXLAN learning change on the live device; a new MAC leaves the hosts' neighbour
      // entries pointing at the old one, a new master cycles the device down and up.
      if (op.mac !== undefined || op.master !== undefined)
        return vrfDevices.has(op.device) ? 'vrf-rebuild' : 'l2-interruption';
      return 'none';
    case 'delAddress':
      // Whoever used the address (a gateway, a VRF's loopback) loses it. The agent removes just the
      // address (one RTM_DELADDR, netlink/apply.ts): on a VRF's own device, its table, L3 VNI and
      // routes stay, so it is no VRF rebuild.
      return 'l2-interruption';
    case 'down':
      // Whoever used the link loses it; a VRF's own device down takes the VRF's routes with it.
      return vrfDevices.has(op.device) ? 'vrf-rebuild' : 'l2-interruption';
  }
}

const ROUTER_BGP = /^router bgp \d+( vrf \S+)?$/;
const VRF_CONTEXT = /^vrf \S+$/;
const PREFIX_LIST = /^(ip|ipv6) prefix-list /;
const ROUTE_MAP = /^route-map /;
/** Neighbor settings a soft refresh applies: the session stays. */
const POLICY_ATTRIBUTE =
  /^neighbor \S+ (route-map|prefix-list|filter-list|distribute-list|maximum-prefix|allowas-in|soft-reconfiguration|send-community|attribute-unchanged|route-reflector-client|next-hop-self|as-override|remove-private-AS)\b/;
/** Lines that change what is advertised or accepted, not any session. */
const ROUTING_POLICY =
  /^(aggregate-address|network|redistribute|route-target|advertise|import vrf|rd |label |rt )/;

/** What the classification of one FRR change needs of the whole difference. */
export interface FrrChangeContext {
  /** Neighbors (peer, group or interface) the running config had, per `router bgp` context key. */
  neighborsBefore: ReadonlyMap<string, ReadonlySet<string>>;
  /** Route-map names the running config had. */
  routeMapsBefore: ReadonlySet<string>;
}

/** The route-map a `route-map NAME permit|deny SEQ` header names. */
export const routeMapOf = (header: string): string | undefined => /^route-map (\S+) /.exec(header)?.[1];

/** The neighbor a `neighbor X …` line is about (X), if it is one. */
export function neighborOf(line: string): string | undefined {
  const m = /^(?:no )?neighbor (\S+) /.exec(line);
  return m?.[1];
}

/** The class of one line (or whole context) frr-reload.py or the fast path adds or removes. */
export function frrChangeClass(c: ConfigChange, removed: boolean, ctx: FrrChangeContext): DisruptionClass {
  const top = c.keys[0]!;
  if (PREFIX_LIST.test(top)) return removed ? 'refilter' : 'none';
  // A map nobody refers to yet (a new VRF's, a new peering's) filters nothing until its neighbor comes.
  if (ROUTE_MAP.test(top))
    return !removed && !ctx.routeMapsBefore.has(routeMapOf(top)!) ? 'none' : 'refilter';
  if (VRF_CONTEXT.test(top)) {
    if (c.line === undefined) return removed ? 'vrf-rebuild' : 'none';
    if (/^vni /.test(c.line)) return 'vrf-rebuild';
    if (/^ipv6? route /.test(c.line)) return removed ? 'refilter' : 'none';
    return 'session-reset';
  }
  if (ROUTER_BGP.test(top)) return bgpChangeClass(c, removed, ctx);
  return 'session-reset';
}

function bgpChangeClass(c: ConfigChange, removed: boolean, ctx: FrrChangeContext): DisruptionClass {
  const top = c.keys[0]!;
  const vrfInstance = / vrf /.test(top);
  if (c.line === undefined) {
    // A whole instance or address-family.
    if (!removed) return 'none';
    return c.keys.length === 1 && vrfInstance ? 'vrf-rebuild' : 'session-reset';
  }
  const line = c.line;
  const neighbor = neighborOf(line);
  // Anything about a neighbor the instance did not have: a new session, nobody's traffic on it yet.
  const newNeighbor = neighbor !== undefined && !(ctx.neighborsBefore.get(top)?.has(neighbor) ?? false);
  if (newNeighbor) return removed ? 'session-reset' : 'none';
  if (ROUTING_POLICY.test(line) || POLICY_ATTRIBUTE.test(line)) return 'refilter';
  if (/^bgp listen range /.test(line)) return removed ? 'session-reset' : 'none';
  // A neighbor's remote-as, peer-group, timers, activation…, `bgp router-id`, and anything not known.
  return 'session-reset';
}
