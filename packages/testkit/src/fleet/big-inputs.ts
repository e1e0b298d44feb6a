/**
 * Valid input sets of a chosen size (fleet tests and bench/configurator-budget.ts): VRFs with
 * prefix lists (what makes FRR lines) and Layer-2 networks with anycast gateways, every value
 * distinct so that validation accepts them all.
 */
import {
  mergeInputs,
  type Inputs,
  type Layer2NetworkConfiguration,
  type PrefixItem,
  type VRFRouteConfiguration,
} from '@nodenet/api';

const API_VERSION = 'network.nodenet.io/v1alpha1';

const prefixItems = (n: number, base: number): PrefixItem[] =>
  Array.from({ length: n }, (_, i) => {
    const k = base + i;
    return {
      cidr: `172.${16 + ((k >> 16) & 15)}.${(k >> 8) & 255}.${k & 255}/32`,
      seq: i + 1,
      action: 'permit',
    };
  });

/** A VRF input with `items` prefixes in each of its import and export lists. */
export function bigVrf(name: string, index: number, items: number): VRFRouteConfiguration {
  return {
    apiVersion: API_VERSION,
    kind: 'VRFRouteConfiguration',
    metadata: { name },
    spec: {
      vrf: `t${index}`,
      vni: 3000 + index,
      seq: 10,
      routeTarget: `65000:${3000 + index}`,
      import: prefixItems(items, index * 2 * items),
      export: prefixItems(items, (index * 2 + 1) * items),
    },
  };
}

/** A Layer-2 network with `gateways` anycast gateways (at most 64), all distinct across networks. */
export function bigLayer2(name: string, index: number, gateways = 64): Layer2NetworkConfiguration {
  const hex = (index + 1).toString(16).padStart(4, '0');
  return {
    apiVersion: API_VERSION,
    kind: 'Layer2NetworkConfiguration',
    metadata: { name },
    spec: {
      id: 1 + index,
      vni: 100_000 + index,
      mtu: 1500,
      anycastMac: `02:00:00:00:${hex.slice(0, 2)}:${hex.slice(2)}`,
      anycastGateways: Array.from({ length: gateways }, (_, j) => {
        const k = index * 64 + j;
        return `10.${(k >> 8) & 255}.${k & 255}.1/24`;
      }),
    },
  };
}

/**
 * Inputs whose revision configuration is about `bytes` long (JSON): `vrfs` VRFs of `items`
 * prefixes per list, then Layer-2 networks up to the size. Returns the set and its exact size.
 */
export function inputSetOfSize(
  bytes: number,
  vrfs = 30,
  items = 250,
): { inputs: Inputs; configBytes: number } {
  const inputs: Inputs = { vrf: [], layer2: [], routingTable: [] };
  for (let i = 0; i < vrfs; i++) inputs.vrf.push(bigVrf(`vrf-${i}`, i, items));
  const size = (): number => Buffer.byteLength(JSON.stringify(mergeInputs(inputs)));
  let current = size();
  // Each network adds about the same; add them in batches, then one by one to the size.
  const one =
    Buffer.byteLength(
      JSON.stringify(mergeInputs({ vrf: [], layer2: [bigLayer2('l2-0', 0)], routingTable: [] }).layer2[0]),
    ) + 1;
  const add = (): void => {
    inputs.layer2.push(bigLayer2(`l2-${inputs.layer2.length}`, inputs.layer2.length));
  };
  while (current + 50 * one < bytes) {
    for (let i = 0; i < 50; i++) add();
    current = size();
  }
  while (current + one <= bytes) {
    add();
    current += one;
  }
  return { inputs, configBytes: size() };
}
