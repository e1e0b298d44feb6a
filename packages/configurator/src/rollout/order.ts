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
