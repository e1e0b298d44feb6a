/** The FRR benchmarks' template and NodeConfig of a given size (module of bench/frr-render.ts and bench/frr-vm.ts). */
import type { PrefixItem, VrfEntry } from '@nodenet/api';
import { testTemplate } from '@nodenet/testkit';

export const template = testTemplate({ hostname: 'nn-bench' });
export const settings = { asn: 65000, routerId: '10.0.0.1', vrfRouterId: '10.0.1.1' };

/** `vrfs` VRFs (`v0`…), each with `entriesPerVrf` entries of `itemsPerList` prefixes per direction. */
export function spec(
  vrfs: number,
  entriesPerVrf: number,
  itemsPerList: number,
): { vrf: VrfEntry[]; routingTable: [] } {
  const vrf: VrfEntry[] = [];
  for (let v = 0; v < vrfs; v++) {
    for (let e = 0; e < entriesPerVrf; e++) {
      const items = (dir: number): PrefixItem[] =>
        Array.from({ length: itemsPerList }, (_, i) => ({
          cidr: i % 2 ? `fd00:${v}:${e}:${i}::/64` : `10.${v % 250}.${(e * 16 + i) % 250}.0/24`,
          seq: i + 1,
          action: i % 5 === 4 ? 'deny' : 'permit',
          ...(dir ? { le: i % 2 ? 128 : 32 } : {}),
        }));
      vrf.push({
        name: `v${v}-${e}`,
        vrf: `v${v}`,
        vni: 1000 + v,
        routeTarget: `65000:${1000 + v}`,
        import: items(0),
        export: items(1),
        aggregate: [`10.${v % 250}.0.0/16`],
        seq: (e + 1) * 10,
        mtu: 9000,
        community: `65000:${e}`,
      });
    }
  }
  return { vrf, routingTable: [] };
}
