/**
 * Node spec pairs with their loopback addresses made alike (pure), for the revision disruption:
 * a per-node loopback address makes every node's spec its own, and 5,000 distinct pairs cost
 * seconds of planning, while the class of a plan does not depend on the address, only on whether
 * it stays, comes, goes or changes. Each address becomes a stand-in that keeps just that, and the
 * entries that end up alike are one object, so the fleet plan computes one plan for them.
 */
import type { NodeConfigSpec, NodeVrfEntry } from '@nodenet/api';

type Side = 'previous' | 'next';

/** Stand-ins from the documentation ranges: the address before, and the one after a change. */
const STAND_IN: Record<'4' | '6', Record<Side, string>> = {
  '4': { previous: '192.0.2.1', next: '192.0.2.2' },
  '6': { previous: '2001:db8::1', next: '2001:db8::2' },
};

export class LoopbackStandIns {
  /** Entries with stand-ins, by side, entry and pattern: one object per kind of node. */
  private readonly entries = new Map<string, NodeVrfEntry>();

  pair(
    previous: NodeConfigSpec | undefined,
    next: NodeConfigSpec,
  ): { previous: NodeConfigSpec | undefined; next: NodeConfigSpec } {
    const before = addressesOf(previous);
    const after = addressesOf(next);
    if (before.size === 0 && after.size === 0) return { previous, next };
    const standIn = (key: string, address: string, side: Side): string => {
      const other = side === 'previous' ? after.get(key) : before.get(key);
      const family = address.includes(':') ? '6' : '4';
      return STAND_IN[family][other === address ? 'previous' : side];
    };
    return {
      previous: previous && this.spec(previous, 'previous', standIn),
      next: this.spec(next, 'next', standIn),
    };
  }

  private spec(
    spec: NodeConfigSpec,
    side: Side,
    standIn: (key: string, address: string, side: Side) => string,
  ): NodeConfigSpec {
    const vrf = spec.vrf.map((e) => {
      if (!e.loopbackAddresses?.length) return e;
      const loopbackAddresses = e.loopbackAddresses.map((l) => ({
        name: l.name,
        address: standIn(`${e.name}\u0000${l.name}`, l.address, side),
      }));
      const key = `${side}\u0000${e.name}\u0000${JSON.stringify(loopbackAddresses)}`;
      let shared = this.entries.get(key);
      if (!shared) this.entries.set(key, (shared = { ...e, loopbackAddresses }));
      return shared;
    });
    return { ...spec, vrf };
  }
}

/** Entry and loopback name → the node's address. */
function addressesOf(spec: NodeConfigSpec | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of spec?.vrf ?? [])
    for (const l of e.loopbackAddresses ?? []) out.set(`${e.name}\u0000${l.name}`, l.address);
  return out;
}
