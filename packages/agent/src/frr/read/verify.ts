/**
 * The check after every reload: frr-reload.py exits 0 even when vtysh refused lines, and a line read
 * in the wrong context (see prepare.ts) can leave FRR running something else than the file, so the
 * apply is judged on FRR's runtime state instead: each VRF of the file exists with its VNI as an L3
 * VNI (`show vrf vni json`, and not typed L2 by `show evpn vni json`), each BGP instance exists
 * (`show bgp vrfs json`) and no other, and every route-map and prefix-list the file defines or names is defined in
 * the running config. Pure: parsing of FRR's JSON and the comparison; the driver runs the queries.
 */
import { parseVrfVni } from './vni.js';
import type { ConfigFacts } from '../text/index.js';

export interface RuntimeState {
  /** `show running-config`, as facts. */
  running: ConfigFacts;
  /** VRF → L3 VNI, from `show vrf vni json`. */
  l3Vnis: Map<string, number>;
  /** VNI → zebra's type (`L2` / `L3`), from `show evpn vni json`; VNIs without a VXLAN device are absent. */
  vniTypes: Map<number, string>;
  /** BGP instances by VRF name (`default` for the default VRF), from `show bgp vrfs json`. */
  bgpInstances: Set<string>;
}

function parseObject(json: string, what: string): Record<string, unknown> {
  const text = json.trim();
  // bgpd or zebra with nothing to show may answer with an empty body.
  if (text === '') return {};
  const v = JSON.parse(text) as unknown;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${what}: not a JSON object`);
  return v as Record<string, unknown>;
}

/** `show vrf vni json` as VRF → VNI (the one parser is vni.ts's). */
export function l3VniByVrf(json: string): Map<string, number> {
  return new Map(parseVrfVni(json).map((v) => [v.vrf, v.vni]));
}

/** `show evpn vni json`: `{"100":{"vni":100,"type":"L3",…},…}`. */
export function parseEvpnVniTypes(json: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const v of Object.values(parseObject(json, 'show evpn vni json'))) {
    const { vni, type } = (v ?? {}) as { vni?: unknown; type?: unknown };
    if (typeof vni === 'number' && typeof type === 'string') out.set(vni, type);
  }
  return out;
}

/** `show bgp vrfs json`: `{"vrfs":{"default":{…},"vr.x":{…}},"totalVrfs":2}`. */
export function parseBgpVrfs(json: string): Set<string> {
  const vrfs = parseObject(json, 'show bgp vrfs json')['vrfs'];
  return new Set(typeof vrfs === 'object' && vrfs !== null ? Object.keys(vrfs) : []);
}

const sorted = (s: Iterable<string>): string[] => [...s].sort();

/**
 * What FRR lacks or runs differently from `expected` (facts of the file just reloaded), one
 * human-readable item each, naming the object; empty when FRR matches.
 */
export function runtimeMismatches(expected: ConfigFacts, state: RuntimeState): string[] {
  const out: string[] = [];
  for (const [vrf, vni] of [...expected.vrfs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!state.running.vrfs.has(vrf)) {
      out.push(`VRF ${vrf} is not in FRR's running config`);
      continue;
    }
    if (vni === undefined) continue;
    const running = state.running.vrfs.get(vrf);
    if (running !== vni) {
      out.push(
        `VRF ${vrf} runs ${running === undefined ? 'without a VNI' : `VNI ${running}`}, not VNI ${vni}`,
      );
      continue;
    }
    const l3 = state.l3Vnis.get(vrf);
    if (l3 !== vni) out.push(`VNI ${vni} of VRF ${vrf} is not shown as its L3 VNI (show vrf vni)`);
    const type = state.vniTypes.get(vni);
    if (type !== undefined && type !== 'L3')
      out.push(`VNI ${vni} of VRF ${vrf} is typed ${type} by zebra, not L3`);
  }
  for (const name of sorted(expected.bgpInstances.keys())) {
    if (!state.bgpInstances.has(name))
      out.push(`BGP instance ${name === 'default' ? '(default VRF)' : `vrf ${name}`} does not exist`);
  }
  for (const name of sorted(state.bgpInstances)) {
    if (!expected.bgpInstances.has(name)) {
      out.push(
        `BGP instance ${name === 'default' ? '(default VRF)' : `vrf ${name}`} runs, the config has none`,
      );
    }
  }
  const maps = new Set([...expected.routeMapsDefined, ...expected.routeMapsReferenced]);
  for (const name of sorted(maps)) {
    if (!state.running.routeMapsDefined.has(name)) out.push(`route-map ${name} is not defined in FRR`);
  }
  const lists = new Set([...expected.prefixListsDefined, ...expected.prefixListsReferenced]);
  for (const key of sorted(lists)) {
    const [family, name] = key.split(' ') as [string, string];
    const found =
      family === 'any'
        ? state.running.prefixListsDefined.has(`ip ${name}`) ||
          state.running.prefixListsDefined.has(`ipv6 ${name}`)
        : state.running.prefixListsDefined.has(key);
    if (!found) out.push(`${family === 'any' ? '' : `${family} `}prefix-list ${name} is not defined in FRR`);
  }
  return out;
}
