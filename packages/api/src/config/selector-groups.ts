/**
 * A config's entries grouped by node selector, so that a node's spec matches each distinct selector
 * once rather than once per entry: 2,000 Layer-2 networks over 50 racks are 50 selectors. Made once
 * per config (configs are never changed after they are made); each selector's text is kept per
 * selector object, which the merge keeps across builds with the entry of each unchanged input.
 */
import { canonicalJson } from './canonical.js';
import { matchesSelector } from './selector.js';
import type { LabelSelector, NetworkConfig } from '../resources/schema.js';

interface SelectorGroup {
  selector: LabelSelector | undefined;
  /** Positions in `config.layer2` of the entries with this selector. */
  layer2: number[];
  /** Positions in `config.vrf`. */
  vrf: number[];
}

interface ConfigGroups {
  groups: SelectorGroup[];
  /** The VRF of every VRF entry, whichever nodes it selects. */
  vrfsAnywhere: ReadonlySet<string>;
}

const groupsByConfig = new WeakMap<NetworkConfig, ConfigGroups>();
const selectorText = new WeakMap<object, string>();

function textOf(selector: LabelSelector | undefined): string {
  if (selector === undefined) return '';
  let text = selectorText.get(selector);
  if (text === undefined) {
    text = canonicalJson(selector);
    selectorText.set(selector, text);
  }
  return text;
}

function groupsOf(config: NetworkConfig): ConfigGroups {
  let known = groupsByConfig.get(config);
  if (known) return known;
  const byText = new Map<string, SelectorGroup>();
  const groupOf = (selector: LabelSelector | undefined): SelectorGroup => {
    const text = textOf(selector);
    let group = byText.get(text);
    if (!group) {
      group = { selector, layer2: [], vrf: [] };
      byText.set(text, group);
    }
    return group;
  };
  config.layer2.forEach((e, i) => groupOf(e.nodeSelector).layer2.push(i));
  config.vrf.forEach((e, i) => groupOf(e.nodeSelector).vrf.push(i));
  known = { groups: [...byText.values()], vrfsAnywhere: new Set(config.vrf.map((e) => e.vrf)) };
  groupsByConfig.set(config, known);
  return known;
}

const ascending = (a: number, b: number): number => a - b;

/**
 * The positions, in config order, of the Layer-2 and VRF entries whose selector matches the labels,
 * the VRF of every VRF entry, and which groups of VRF entries matched (`vrfGroups`: nodes that agree
 * on it receive the same VRF entries).
 */
export function selectedEntries(
  config: NetworkConfig,
  labels: Record<string, string>,
): { layer2: number[]; vrf: number[]; vrfsAnywhere: ReadonlySet<string>; vrfGroups: string } {
  const { groups, vrfsAnywhere } = groupsOf(config);
  const layer2: number[] = [];
  const vrf: number[] = [];
  let vrfGroups = '';
  groups.forEach((group, g) => {
    if (!matchesSelector(group.selector, labels)) return;
    for (const i of group.layer2) layer2.push(i);
    for (const i of group.vrf) vrf.push(i);
    if (group.vrf.length > 0) vrfGroups += `${g},`;
  });
  return { layer2: layer2.sort(ascending), vrf: vrf.sort(ascending), vrfsAnywhere, vrfGroups };
}
