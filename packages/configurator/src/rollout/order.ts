/** The start order of nodes: strict, total and independent of input order. */
import { labelOf } from '@nodenet/api';
import type { NodeInfo } from './types.js';

const NUMBER = /^-?\d+(\.\d+)?$/;

/** Rank of a wave label value: numbers (in numeric order), then text values, then unlabelled. */
function compareWave(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  const na = NUMBER.test(a);
  const nb = NUMBER.test(b);
  if (na !== nb) return na ? -1 : 1;
  if (na && nb && Number(a) !== Number(b)) return Number(a) - Number(b);
  // Two texts, or two spellings of one number ("1", "01"): plain code-unit order.
  return a < b ? -1 : 1;
}

/** Wave label value (see compareWave), then node name. */
export function compareNodes(waveLabel: string | undefined): (a: NodeInfo, b: NodeInfo) => number {
  return (a, b) => {
    const w = waveLabel ? compareWave(labelOf(a.labels, waveLabel), labelOf(b.labels, waveLabel)) : 0;
    if (w !== 0) return w;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  };
}

const waveOf = (node: NodeInfo | undefined, label: string): string | undefined =>
  node === undefined ? undefined : labelOf(node.labels, label);

/**
 * The start order of the fleet's names kept between passes by the incremental planner: the indexes
 * of `names` sorted by compareNodes (a node without a Node object sorts as unlabelled), sorted again
 * only when the names (a new array), the wave label or a node's wave value changed.
 */
export class KeptStartOrder {
  private names: readonly string[] | undefined;
  private label: string | undefined;
  private order: number[] = [];
  private stale = true;
  /** Per name, its wave value when the order was made (kept only with a wave label). */
  private readonly waves = new Map<string, string | undefined>();

  /** The nodes whose Node changed: one whose wave value moved makes the order stale. */
  note(changed: Iterable<string>, nodeByName: ReadonlyMap<string, NodeInfo>): void {
    const label = this.label;
    if (this.stale || label === undefined) return;
    for (const name of changed)
      if (waveOf(nodeByName.get(name), label) !== this.waves.get(name)) {
        this.stale = true;
        return;
      }
  }

  /** The indexes of `names` in start order. */
  indexes(
    names: readonly string[],
    nodeByName: ReadonlyMap<string, NodeInfo>,
    waveLabel: string | undefined,
  ): readonly number[] {
    if (!this.stale && names === this.names && waveLabel === this.label) return this.order;
    this.order = sortedIndexes(names, nodeByName, waveLabel);
    this.names = names;
    this.label = waveLabel;
    this.stale = false;
    this.waves.clear();
    if (waveLabel !== undefined)
      for (const n of names) this.waves.set(n, waveOf(nodeByName.get(n), waveLabel));
    return this.order;
  }

  /** Where the kept order differs from the names sorted afresh (tests: nowhere). */
  differences(names: readonly string[], nodeByName: ReadonlyMap<string, NodeInfo>): string[] {
    if (this.stale || names !== this.names) return [];
    const fresh = sortedIndexes(names, nodeByName, this.label);
    const at = fresh.findIndex((i, k) => this.order[k] !== i);
    return at < 0
      ? []
      : [
          `start order differs at ${at}: kept ${names[this.order[at] ?? -1]}, sorted ${names[fresh[at] ?? -1]}`,
        ];
  }
}

function sortedIndexes(
  names: readonly string[],
  nodeByName: ReadonlyMap<string, NodeInfo>,
  waveLabel: string | undefined,
): number[] {
  const order = compareNodes(waveLabel);
  const infos = names.map((name) => nodeByName.get(name) ?? { name, labels: {}, ready: false });
  return infos.map((_, i) => i).sort((a, b) => order(infos[a] as NodeInfo, infos[b] as NodeInfo));
}
