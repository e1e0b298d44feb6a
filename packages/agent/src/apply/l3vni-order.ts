/**
 * L3 VNI bring-up order, the agent half. The netlink apply leaves a VRF's L3 VNI bridge and VXLAN
 * down when they would come up (netlink/l3vni.ts); after FRR's reload this waits — bounded, on a
 * monotonic clock — until FRR shows the VNI as that VRF's L3 VNI (`show vrf vni`), then brings them
 * up. zebra would otherwise take a VXLAN that comes up first for an L2 VNI (hairpin flooding, wrong
 * router MAC). A timeout fails the apply naming the VRF and VNI; the pipeline then restores.
 *
 * `l3VniOrder` carries the gates from a netlink apply to the FRR reload that follows it (every
 * caller — apply, drift repair, restore — runs netlink, then FRR); `bringUpL3Vnis` is the wait.
 */
import { NodenetError } from '@nodenet/api';
import type { FrrL3Vni } from '../frr/read/index.js';
import type { L3VniGate } from '../netlink/index.js';

export interface L3VniOrderSettings {
  /** How long FRR may take to show every held VNI as L3 (default 30 s). */
  timeoutMs: number;
  /** Pause between two queries (default 500 ms). */
  pollMs: number;
}

export const DEFAULT_L3VNI_ORDER: L3VniOrderSettings = { timeoutMs: 30_000, pollMs: 500 };

export interface L3VniOrderDeps {
  /** FRR's L3 VNIs now (`show vrf vni json`); may reject (FRR busy after a reload). */
  query: () => Promise<FrrL3Vni[]>;
  /** Sets these devices up. */
  bringUp: (devices: readonly string[]) => Promise<void>;
  /** Monotonic milliseconds; default `performance.now()`. */
  monotonicMs?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** FRR does not show a held VNI as its VRF's L3 VNI in time: the devices stay down. */
export class L3VniNotReadyError extends NodenetError {
  constructor(
    readonly pending: readonly L3VniGate[],
    readonly timeoutMs: number,
    /** What FRR showed last for each pending VRF, or why the query failed. */
    readonly seen: string,
  ) {
    const what = pending.map((g) => `VRF ${g.vrf} (VNI ${g.vni}, FRR VRF ${g.vrfDevice})`).join(', ');
    const devices = pending.flatMap((g) => g.devices).join(', ');
    super(
      'L3VniNotReady',
      `FRR did not show the L3 VNI of ${what} within ${Math.round(timeoutMs / 1000)} s (` +
        `vtysh -c 'show vrf vni': ${seen}); ${devices} left down so zebra cannot take the VNI for an L2 VNI`,
    );
  }
}

/** FRR shows the gate's VNI as its VRF's L3 VNI, bound to the VRF's VXLAN device (pure). */
export function l3VniReady(shown: readonly FrrL3Vni[], gate: L3VniGate): boolean {
  return shown.some(
    (s) =>
      s.vrf === gate.vrfDevice &&
      s.vni === gate.vni &&
      (s.vxlanIntf === undefined || s.vxlanIntf === gate.vxlan),
  );
}

/** What FRR shows for a gate's VRF, for the timeout message (pure). */
export function describeShown(shown: readonly FrrL3Vni[], gate: L3VniGate): string {
  const entry = shown.find((s) => s.vrf === gate.vrfDevice);
  if (!entry) return `${gate.vrfDevice} not listed`;
  return `${gate.vrfDevice} has VNI ${entry.vni} on ${entry.vxlanIntf ?? 'no VXLAN device'} (${entry.state ?? 'state unknown'})`;
}

/**
 * Waits until FRR shows each gate's VNI as L3, bringing each gate's devices up as soon as it does.
 * Throws L3VniNotReadyError for the gates still pending when the time is up.
 */
export async function bringUpL3Vnis(
  gates: readonly L3VniGate[],
  deps: L3VniOrderDeps,
  settings: L3VniOrderSettings = DEFAULT_L3VNI_ORDER,
): Promise<void> {
  if (gates.length === 0) return;
  const now = deps.monotonicMs ?? (() => performance.now());
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = now() + settings.timeoutMs;
  let pending = [...gates];
  for (;;) {
    let shown: FrrL3Vni[] = [];
    let failure: string | undefined;
    try {
      shown = await deps.query();
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
    }
    const ready = pending.filter((g) => l3VniReady(shown, g));
    if (ready.length > 0) await deps.bringUp(ready.flatMap((g) => g.devices));
    pending = pending.filter((g) => !ready.includes(g));
    if (pending.length === 0) return;
    if (now() >= deadline) {
      throw new L3VniNotReadyError(
        pending,
        settings.timeoutMs,
        failure ?? pending.map((g) => describeShown(shown, g)).join('; '),
      );
    }
    await sleep(Math.max(0, Math.min(settings.pollMs, deadline - now())));
  }
}

/** The gates of the last netlink apply, held until the FRR reload that follows it. */
export interface L3VniOrder {
  /** After a netlink apply: these devices stay down until FRR shows their VNIs as L3. */
  hold(gates: L3VniGate[]): void;
  /** After FRR's reload: brings the held devices up in order (throws L3VniNotReadyError). */
  afterReload(): Promise<void>;
}

export function l3VniOrder(
  deps: Pick<L3VniOrderDeps, 'query' | 'bringUp'>,
  settings: L3VniOrderSettings = DEFAULT_L3VNI_ORDER,
): L3VniOrder {
  let held: L3VniGate[] = [];
  return {
    hold: (gates) => {
      held = gates;
    },
    afterReload: async () => {
      const gates = held;
      held = [];
      await bringUpL3Vnis(gates, deps, settings);
    },
  };
}
