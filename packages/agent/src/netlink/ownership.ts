/**
 * Which host devices are nodenet's (pure). Ownership goes by a mark, not by name: every device
 * nodenet creates carries the interface alias OWNER_ALIAS, and only marked devices are ever changed
 * or deleted. A hand-made `vx.7777` is left alone even though its name looks like nodenet's.
 *
 * - A desired device whose name an unmarked device holds is a conflict: the apply stops before any
 *   change and names the device (DeviceOwnershipError), because taking it over could break whatever
 *   made it.
 * - Upgrade path: agents before the mark made unmarked devices. While no device on the host carries
 *   the mark yet (the state such an agent leaves), unmarked devices that match the applied
 *   checkpoint's devices exactly are adopted: marked, and from then on owned. Once anything is
 *   marked, nothing more is adopted, so adoption happens once per host.
 */
import { compareStrings } from './address.js';
import { KERNEL_PORT_DEFAULTS, recreateReason } from './diff.js';
import { DeviceOwnershipError } from './errors.js';
import type { Device, HostModel, Operation } from './model.js';

export interface OwnershipInput {
  /** Devices carrying the mark. */
  owned: HostModel;
  /** Unmarked devices with a name nodenet might want (the candidates for adoption and conflicts). */
  unowned: HostModel;
  /** Every device name on the host, marked or not. */
  allNames: ReadonlySet<string> | ReadonlyMap<string, unknown>;
  desired: HostModel;
  /** The desired model of the applied checkpoint (what an older agent left), if there is one. */
  adoptable?: HostModel;
}

export interface Ownership {
  /** The devices the diff may touch: the marked ones plus those adopted now. */
  owned: HostModel;
  /** `adopt` operations, to run before the diff's. */
  adopt: Operation[];
  /** Desired names held by devices nodenet does not own. */
  conflicts: { name: string; kind: string }[];
}

export function resolveOwnership(input: OwnershipInput): Ownership {
  const owned: HostModel = new Map(input.owned);
  const adopt: Operation[] = [];
  if (input.adoptable && input.owned.size === 0) {
    const everything: HostModel = new Map([...input.unowned, ...input.owned]);
    for (const [name, cur] of [...input.unowned].sort(([a], [b]) => compareStrings(a, b))) {
      const want = input.adoptable.get(name);
      if (!want || !matchesExactly(cur, want, everything, input.adoptable)) continue;
      owned.set(name, cur);
      adopt.push({
        op: 'adopt',
        device: name,
        kind: cur.kind,
        reason: 'made by an agent before ownership marks; matches the applied checkpoint',
      });
    }
  }
  const conflicts: { name: string; kind: string }[] = [];
  for (const name of input.desired.keys()) {
    if (!owned.has(name) && input.allNames.has(name))
      conflicts.push({ name, kind: input.unowned.get(name)?.kind ?? 'unknown' });
  }
  return { owned, adopt, conflicts };
}

/** Throws DeviceOwnershipError when desired names are held by devices nodenet does not own. */
export function assertNoConflicts(ownership: Ownership): void {
  if (ownership.conflicts.length > 0) throw new DeviceOwnershipError(ownership.conflicts);
}

/** `cur` is exactly what `want` describes: the diff would not touch it. */
export function matchesExactly(cur: Device, want: Device, current: HostModel, desired: HostModel): boolean {
  if (recreateReason(cur, want, current, desired) !== undefined) return false;
  if (want.vxlan && cur.vxlan?.learning !== want.vxlan.learning) return false;
  if (want.master !== cur.master || want.up !== cur.up) return false;
  if (want.mtu !== undefined && want.mtu !== cur.mtu) return false;
  if (want.mac !== undefined && want.mac !== cur.mac) return false;
  if (want.port) {
    const have = cur.port ?? KERNEL_PORT_DEFAULTS;
    if (
      have.learning !== want.port.learning ||
      have.neighSuppress !== want.port.neighSuppress ||
      have.hairpin !== want.port.hairpin
    )
      return false;
  }
  return (
    cur.addresses.length === want.addresses.length && cur.addresses.every((a, i) => a === want.addresses[i])
  );
}
