/**
 * A BGPPeering's status from the NodeConfigs (issue #28): the nodes whose spec carries it, and how
 * many of its sessions the agents observed Established (NodeConfig `status.observed.bgpSessions`). A
 * session is the peering's when it is in the peering's BGP instance (`default`, or the VRF device
 * `vr.<vrf>`) and its peer is one of the neighbours or inside one of the listen ranges. Pure.
 */
import { deviceNames } from '../names/devices.js';
import { parsePrefix } from '../grammar/prefix.js';
import type { NodeConfigSpec, NodeConfigStatus } from '../resources/schema.js';
import type { NodeBgpPeeringEntry } from '../resources/bgp-peering.js';

export interface PeeringCounts {
  nodes: number;
  established: number;
}

function inRange(peer: string, range: string): boolean {
  const p = parsePrefix(`${peer}/${peer.includes(':') ? 128 : 32}`);
  const r = parsePrefix(range);
  if (!p.ok || !r.ok || p.prefix.family !== r.prefix.family) return false;
  const q = parsePrefix(`${p.prefix.address}/${r.prefix.length}`);
  return q.ok && q.prefix.network === r.prefix.network;
}

const canonical = (peer: string): string => {
  const address = parsePrefix(`${peer}/${peer.includes(':') ? 128 : 32}`);
  return address.ok ? address.prefix.address : peer;
};

const isPeeringSession = (e: NodeBgpPeeringEntry, vrf: string, peer: string): boolean => {
  if (vrf !== (e.vrf === undefined ? 'default' : deviceNames.vrf(e.vrf))) return false;
  return e.neighbors.includes(peer) || e.listenRanges.some((r) => inRange(peer, r));
};

/** Counts per peering name, over every NodeConfig. */
export function peeringCounts(
  nodeConfigs: readonly { spec: NodeConfigSpec; status?: NodeConfigStatus }[],
): Map<string, PeeringCounts> {
  const out = new Map<string, PeeringCounts>();
  for (const nc of nodeConfigs) {
    const sessions = nc.status?.observed?.bgpSessions ?? [];
    for (const e of nc.spec.bgpPeering ?? []) {
      const c = out.get(e.name) ?? { nodes: 0, established: 0 };
      c.nodes++;
      // One session per peer address and node: a status listing one peer many times (a hostile or
      // broken agent) counts it once; a peer outside the peering's instance and ranges not at all.
      const peers = new Set<string>();
      for (const s of sessions) {
        if (s.state !== 'Established') continue;
        const peer = canonical(s.peer);
        if (!peers.has(peer) && isPeeringSession(e, s.vrf, peer)) peers.add(peer);
      }
      c.established += peers.size;
      out.set(e.name, c);
    }
  }
  return out;
}
