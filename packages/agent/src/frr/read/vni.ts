/**
 * The L3 VNIs FRR (zebra) knows: `show vrf vni json`, one entry per VRF with an L3 VNI, whether or
 * not its devices are up. The agent waits for a VRF's entry before it brings the VRF's L3 VNI
 * bridge and VXLAN up (../l3vni-order.ts). Parsing is pure and unit-tested.
 */
import { frrMessage, run } from './exec.js';
import { vtyshArgv, type ResolvedInstance } from './instance.js';

export interface FrrL3Vni {
  vrf: string;
  vni: number;
  /** VXLAN device zebra bound to the VNI; undefined when it shows none. */
  vxlanIntf?: string;
  /** Bridge (SVI) zebra bound to the VNI; undefined when it shows none. */
  sviIntf?: string;
  /** zebra's state of the L3 VNI (`Up`/`Down`). */
  state?: string;
}

/** Parses `show vrf vni json` (`{"vrfs":[{"vrf","vni","vxlanIntf","sviIntf","state",…}]}`). */
export function parseVrfVni(json: string): FrrL3Vni[] {
  const text = json.trim();
  if (text === '') return [];
  const parsed = JSON.parse(text) as unknown;
  const list = Array.isArray(parsed) ? parsed : ((parsed as { vrfs?: unknown } | null)?.vrfs ?? []);
  if (!Array.isArray(list)) throw new Error(`"vrfs" is not a list: ${text.slice(0, 200)}`);
  const name = (v: unknown): string | undefined =>
    typeof v === 'string' && v !== '' && v !== 'None' ? v : undefined;
  return list.flatMap((e: Record<string, unknown>) => {
    const vrf = e.vrf;
    const vni = Number(e.vni);
    if (typeof vrf !== 'string' || !Number.isInteger(vni) || vni <= 0) return [];
    const vxlanIntf = name(e.vxlanIntf);
    const sviIntf = name(e.sviIntf);
    const state = name(e.state);
    return [
      {
        vrf,
        vni,
        ...(vxlanIntf ? { vxlanIntf } : {}),
        ...(sviIntf ? { sviIntf } : {}),
        ...(state ? { state } : {}),
      },
    ];
  });
}

/** Asks FRR for its L3 VNIs; throws with FRR's message when vtysh fails or answers no JSON. */
export async function queryL3Vnis(instance: ResolvedInstance): Promise<FrrL3Vni[]> {
  const [vtysh, base] = vtyshArgv(instance);
  const r = await run(vtysh, [...base, '-c', 'show vrf vni json'], instance.timeoutMs);
  if (r.code !== 0) throw new Error(`vtysh -c 'show vrf vni json' failed: ${frrMessage(r)}`);
  try {
    return parseVrfVni(r.stdout);
  } catch (err) {
    throw new Error(`vtysh -c 'show vrf vni json' answered no VNI list: ${(err as Error).message}`);
  }
}
