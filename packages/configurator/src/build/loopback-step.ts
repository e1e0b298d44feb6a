/**
 * Loopback addresses in the build (pure): the allocation a new revision carries is derived from the
 * newest revision's (`allocateLoopbacks` in @nodenet/api) and the Nodes that exist, Ready or not;
 * a deleted Node frees its addresses. A node the subnet has no address for gets none, and its VRF
 * object reads `LoopbacksAllocated=False` (reason SubnetExhausted) naming the loopback and the nodes;
 * every other node keeps what it had.
 */
import {
  canonicalEqual,
  configWithLoopbacks,
  matchesSelector,
  setConditions,
  shortageMessage,
  type AllocationNode,
  type InputStatus,
  type Inputs,
  type LabelSelector,
  type LoopbackShortage,
  type NetworkConfig,
  type NetworkConfigRevision,
} from '@nodenet/api';
import type { InputStatusUpdate } from './input-status.js';

export const LOOPBACKS_CONDITION = 'LoopbacksAllocated';

/** The Nodes this configurator manages (its --node-selector), as the allocation reads them. */
export function loopbackNodes(
  nodes: readonly { metadata: { name?: string; labels?: Record<string, string> } }[],
  selector: LabelSelector | undefined,
): AllocationNode[] {
  return nodes
    .filter((n) => n.metadata.name !== undefined && matchesSelector(selector, n.metadata.labels ?? {}))
    .map((n) => ({ name: n.metadata.name!, labels: n.metadata.labels ?? {} }));
}

/**
 * The built config with its loopback addresses (configWithLoopbacks in @nodenet/api, which the
 * CLI's preview uses too). `nodes` undefined: a caller that manages no Nodes; no addresses.
 */
export function withLoopbacks(
  built: { config: NetworkConfig; hash: string },
  revisions: readonly NetworkConfigRevision[],
  nodes: readonly AllocationNode[] | undefined,
): { config: NetworkConfig; hash: string; shortages: LoopbackShortage[] } {
  return nodes === undefined ? { ...built, shortages: [] } : configWithLoopbacks(built, revisions, nodes);
}

/**
 * The input status updates with each loopback-carrying VRF object's `LoopbacksAllocated`
 * condition: False with the shortage while a subnet is exhausted, True otherwise.
 */
export function withShortageConditions(
  updates: InputStatusUpdate[],
  inputs: Inputs,
  shortages: readonly LoopbackShortage[],
  nowText: string,
): InputStatusUpdate[] {
  const out = [...updates];
  // Each update's position by its object, made on the first VRF with loopbacks: a search per
  // VRF made 500 loopback VRFs among 2,500 updates cost a million comparisons.
  let positions: Map<object, number> | undefined;
  for (const obj of inputs.vrf) {
    if ((obj.spec.loopbacks ?? []).length === 0) continue;
    const mine = shortages.filter((s) => s.entry === obj.metadata.name);
    positions ??= new Map(out.map((u, i) => [u.object, i]));
    const at = positions.get(obj) ?? -1;
    const base: InputStatus = at >= 0 ? out[at]!.status : (obj.status ?? {});
    const condition =
      mine.length > 0
        ? {
            type: LOOPBACKS_CONDITION,
            status: 'False' as const,
            reason: 'SubnetExhausted',
            message: mine.map(shortageMessage).join('; '),
          }
        : {
            type: LOOPBACKS_CONDITION,
            status: 'True' as const,
            reason: 'Allocated',
            message: 'every selected node has an address of each loopback',
          };
    const next: InputStatus = { ...base, conditions: setConditions(base.conditions, [condition], nowText) };
    if (canonicalEqual(next, obj.status ?? {})) continue;
    if (at >= 0) out[at] = { ...out[at]!, status: next };
    else out.push({ object: obj, status: next });
  }
  return out;
}
