/**
 * Admission warnings for input objects that clash with the ones stored (a VLAN id, VNI, VRF table or
 * anycast gateway another object holds), as a validating webhook would give them: the configurator
 * refuses such an object (`Accepted=False`, held back), so `kubectl apply` says so at once instead of
 * storing it silently. The text is `@nodenet/api`'s `validateInputs` (the configurator's own rules,
 * messages as in the `Accepted` condition); the objects stored before win every claim, as the ones
 * in force do in the configurator. The write itself is not refused (the other object may be fixed).
 */
import { validateInputs, type InputObject, type Inputs } from '@nodenet/api';
import type { Cluster } from './cluster.js';
import { storageKeyOf, type ResourceType } from '../resources/resources.js';
import type { KObject } from '../objects/types.js';
import { nodeSelectorWarnings } from './selector-warnings.js';

const GROUP = 'network.nodenet.io';
const INPUT_KINDS = {
  VRFRouteConfiguration: { plural: 'vrfrouteconfigurations', list: 'vrf' },
  Layer2NetworkConfiguration: { plural: 'layer2networkconfigurations', list: 'layer2' },
  RoutingTable: { plural: 'routingtables', list: 'routingTable' },
} as const;
/** Warnings listed per write at most (the first ones name the clash). */
const MAX_WARNINGS = 5;
/**
 * Above this many stored inputs no clash is looked for: each write would validate them all (fleet
 * tests and benchmarks write thousands); the configurator's `Accepted` condition still says it.
 */
const MAX_CHECKED_INPUTS = 500;

export function conflictWarnings(cluster: Cluster, t: ResourceType, obj: KObject): string[] {
  if (t.group !== GROUP || !(t.kind in INPUT_KINDS)) return [];
  const name = obj.metadata.name ?? '';
  const inputs: Inputs = { vrf: [], layer2: [], routingTable: [] };
  const others = new Set<string>();
  for (const [kind, { plural, list }] of Object.entries(INPUT_KINDS))
    for (const s of cluster.store.list(storageKeyOf({ group: GROUP, plural }))) {
      const o = { ...s.obj, kind } as unknown as InputObject;
      (inputs[list] as InputObject[]).push(o);
      if (!(kind === t.kind && o.metadata.name === name)) others.add(`${kind}/${o.metadata.name}`);
    }
  if (others.size >= MAX_CHECKED_INPUTS) return [];
  // Claims that involve the object just written; checks of its own fields are the schema's business.
  return validateInputs(inputs, { inForce: others })
    .filter((p) => p.kind === t.kind && p.name === name && /already|overlaps/.test(p.reason))
    .slice(0, MAX_WARNINGS)
    .map((p) => `${p.message} (the configurator refuses it and keeps what is in force)`);
}

/** Every admission warning devcluster gives for a written object: its selector, then its clashes. */
export const admissionWarnings = (cluster: Cluster, t: ResourceType, obj: KObject): string[] => [
  ...nodeSelectorWarnings(cluster, t, obj),
  ...conflictWarnings(cluster, t, obj),
];
