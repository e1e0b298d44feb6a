/**
 * BGPPeering rules: about one peering (`PEERING_RULES`, after its schema check) and across objects
 * (`peeringClaims`: what it refers to exists and can carry it, and no two peerings claim one
 * session). The CEL rules in resources/bgp-peering.ts say the same at `kubectl apply` time.
 */
import ipaddr from 'ipaddr.js';
import { isCommunity } from '../grammar/patterns.js';
import { MAX_BGP_PEERING_NAME_LENGTH } from '../grammar/limits.js';
import type { BGPPeering, Layer2NetworkConfiguration, VRFRouteConfiguration } from '../resources/objects.js';
import { normalizeAddress } from '../config/bgp-peering-merge.js';
import { parsePrefix } from '../grammar/prefix.js';
import { checkPrefixList, type ObjectRule } from './object-rules.js';
import { claim, problem, type Problem } from './problem.js';
import { checkSelector } from './selector-rules.js';
import { outsideVrf } from './vrf-reach.js';

const P = 'BGPPeering';

const peeringName: ObjectRule<BGPPeering> = ({ metadata }) =>
  metadata.name.length > MAX_BGP_PEERING_NAME_LENGTH
    ? [
        problem(
          { kind: P, name: metadata.name },
          'metadata.name',
          metadata.name.length,
          `must be at most ${MAX_BGP_PEERING_NAME_LENGTH} characters: it names the peering's FRR peer-group, filters and BFD profile`,
        ),
      ]
    : [];

const oneMode: ObjectRule<BGPPeering> = ({ metadata, spec }) =>
  (spec.listenRange === undefined) === (spec.neighbor === undefined)
    ? [
        problem(
          { kind: P, name: metadata.name },
          'spec',
          undefined,
          'exactly one of listenRange and neighbor must be set',
        ),
      ]
    : [];

const oneRemoteAs: ObjectRule<BGPPeering> = ({ metadata, spec }) =>
  (spec.remoteASN === undefined) === (spec.remoteAS === undefined)
    ? [
        problem(
          { kind: P, name: metadata.name },
          'spec',
          undefined,
          'exactly one of remoteASN and remoteAS must be set',
        ),
      ]
    : [];

const timers: ObjectRule<BGPPeering> = ({ metadata, spec }) => {
  const { holdTime, keepaliveTime } = spec;
  if ((holdTime === undefined) !== (keepaliveTime === undefined)) {
    return [
      problem(
        { kind: P, name: metadata.name },
        'spec.keepaliveTime',
        keepaliveTime,
        'holdTime and keepaliveTime must be set together',
      ),
    ];
  }
  // FRR sends keepalives at min(keepalive, hold / 3); a larger value would silently not be the one in force.
  return holdTime !== undefined && keepaliveTime !== undefined && keepaliveTime * 3 > holdTime
    ? [
        problem(
          { kind: P, name: metadata.name },
          'spec.keepaliveTime',
          keepaliveTime,
          `must be at most a third of holdTime (${holdTime})`,
        ),
      ]
    : [];
};

const neighborAddresses: ObjectRule<BGPPeering> = ({ metadata, spec }) => {
  const out: Problem[] = [];
  const seen = new Map<string, number>();
  (spec.neighbor?.addresses ?? []).forEach((a, i) => {
    const field = `spec.neighbor.addresses[${i}]`;
    const p = parsePrefix(`${a}/${a.includes(':') ? 128 : 32}`);
    if (!p.ok) out.push(problem({ kind: P, name: metadata.name }, field, a, p.reason));
    const special = p.ok ? notAPeer(p.prefix.address) : undefined;
    if (special) out.push(problem({ kind: P, name: metadata.name }, field, a, special));
    const first = claim(seen, normalizeAddress(a), i);
    if (first !== undefined)
      out.push(
        problem({ kind: P, name: metadata.name }, field, a, `duplicates spec.neighbor.addresses[${first}]`),
      );
  });
  return out;
};

/**
 * Addresses no BGP neighbour can have (ipaddr.js's ranges): FRR would refuse them, or bind a session
 * to the node itself. A link-local address needs an interface, which a neighbour here can not name.
 */
const NOT_A_PEER: Record<string, string> = {
  unspecified: 'is the unspecified address, not a peer',
  loopback: "is a loopback address: the node's own",
  multicast: 'is a multicast address, not a peer',
  broadcast: 'is the broadcast address, not a peer',
  linkLocal: 'is link-local: it needs an interface, which a neighbour can not name',
  ipv4Mapped: 'is an IPv4-mapped IPv6 address: write the IPv4 address',
};

function notAPeer(address: string): string | undefined {
  const ip = ipaddr.parse(address);
  // 0.0.0.0/8 ("this network") and 240.0.0.0/4 (reserved) are never a host on the wire.
  if (ip.kind() === 'ipv4' && address !== '0.0.0.0' && address !== '255.255.255.255') {
    const first = (ip as ipaddr.IPv4).octets[0]!;
    if (first === 0) return 'is in 0.0.0.0/8 ("this network"), not a peer';
    if (first >= 240) return 'is in the reserved range 240.0.0.0/4, not a peer';
  }
  return NOT_A_PEER[ip.range()];
}

const families: ObjectRule<BGPPeering> = ({ metadata, spec }) => {
  const list = spec.addressFamilies;
  if (list === undefined) return [];
  if (list.length === 0)
    return [
      problem({ kind: P, name: metadata.name }, 'spec.addressFamilies', list, 'must name ipv4, ipv6 or both'),
    ];
  return list.length === 2 && list[0] === list[1]
    ? [
        problem(
          { kind: P, name: metadata.name },
          'spec.addressFamilies[1]',
          list[1],
          'duplicates spec.addressFamilies[0]',
        ),
      ]
    : [];
};

const prefixLists: ObjectRule<BGPPeering> = (o) =>
  (['import', 'export'] as const).flatMap((list) =>
    checkPrefixList({ kind: P, name: o.metadata.name }, `spec.${list}`, o.spec[list] ?? []),
  );

const communities: ObjectRule<BGPPeering> = ({ metadata, spec }) => {
  const out: Problem[] = [];
  const seen = new Map<string, number>();
  (spec.importCommunities ?? []).forEach((c, i) => {
    const field = `spec.importCommunities[${i}]`;
    if (!isCommunity(c))
      out.push(
        problem(
          { kind: P, name: metadata.name },
          field,
          c,
          'has a part out of range (16-bit AA:NN, 32-bit A:B:C)',
        ),
      );
    const first = claim(seen, c, i);
    if (first !== undefined)
      out.push(
        problem({ kind: P, name: metadata.name }, field, c, `duplicates spec.importCommunities[${first}]`),
      );
  });
  return out;
};

const selector: ObjectRule<BGPPeering> = ({ metadata, spec }) =>
  spec.nodeSelector ? checkSelector(P, metadata.name, 'spec.nodeSelector', spec.nodeSelector) : [];

export const PEERING_RULES: ObjectRule<BGPPeering>[] = [
  peeringName,
  oneMode,
  oneRemoteAs,
  timers,
  neighborAddresses,
  families,
  prefixLists,
  communities,
  selector,
];

export interface PeeringClaimInputs {
  /** Peerings that passed their schema, in blame order. */
  peerings: readonly BGPPeering[];
  /** Every Layer-2 network, valid or not (one refused for itself is not reported again here). */
  layer2: readonly Layer2NetworkConfiguration[];
  /** VRF names that some VRFRouteConfiguration defines, valid or not. */
  definedVrfs: ReadonlySet<unknown>;
  /** VRF objects that passed their schema: where each VRF reaches (their node selectors). */
  vrfs: readonly VRFRouteConfiguration[];
}

/**
 * What a peering refers to exists and can carry it; no two peerings listen on one network or name
 * one neighbour in one VRF (FRR keeps one peer-group per listen range and per neighbour). A
 * neighbour peering in a VRF must not reach a node the VRF does not (`outsideVrf`, the Layer-2
 * networks' structural rule); a listen-range peering needs no such check: it reaches only nodes its
 * network reaches (nodePeerings), and the network's own rule keeps those inside its VRF.
 */
export function peeringClaims({ peerings, layer2, definedVrfs, vrfs }: PeeringClaimInputs): Problem[] {
  const out: Problem[] = [];
  const listeners = new Map<string, string>();
  const neighbors = new Map<string, string>();
  for (const o of peerings) {
    const name = o.metadata.name;
    const lr = o.spec.listenRange;
    if (lr !== undefined) {
      const net = layer2.find((l) => l.metadata.name === lr.layer2);
      const gateways = (net?.spec as { anycastGateways?: unknown[] } | undefined)?.anycastGateways ?? [];
      if (!net) {
        out.push(
          problem(
            { kind: P, name },
            'spec.listenRange.layer2',
            lr.layer2,
            'names no Layer2NetworkConfiguration',
          ),
        );
      } else if (gateways.length === 0) {
        out.push(
          problem(
            { kind: P, name },
            'spec.listenRange.layer2',
            lr.layer2,
            'has no anycastGateways: a listen range is the subnet of a gateway',
          ),
        );
      }
      const holder = claim(listeners, lr.layer2, name);
      if (holder !== undefined) {
        out.push(
          problem(
            { kind: P, name },
            'spec.listenRange.layer2',
            lr.layer2,
            `is already listened on by ${P} ${holder}`,
          ),
        );
      }
    }
    const nb = o.spec.neighbor;
    if (nb === undefined) continue;
    if (nb.vrf !== undefined && !definedVrfs.has(nb.vrf)) {
      out.push(
        problem(
          { kind: P, name },
          'spec.neighbor.vrf',
          nb.vrf,
          'names a VRF no VRFRouteConfiguration defines',
        ),
      );
    }
    const outside = nb.vrf === undefined ? undefined : outsideVrf(o.spec.nodeSelector, nb.vrf, vrfs);
    if (outside) out.push(problem({ kind: P, name }, 'spec.nodeSelector', o.spec.nodeSelector, outside));
    nb.addresses.forEach((a, i) => {
      const holder = claim(neighbors, `${nb.vrf ?? ''} ${normalizeAddress(a)}`, name);
      if (holder !== undefined && holder !== name) {
        out.push(
          problem(
            { kind: P, name },
            `spec.neighbor.addresses[${i}]`,
            a,
            `is already a neighbour of ${P} ${holder} in ${nb.vrf === undefined ? 'the default VRF' : `VRF ${nb.vrf}`}`,
          ),
        );
      }
    });
  }
  return out;
}
