/**
 * How many NodeConfig writes a pass keeps in flight (pure). Each write holds its body (JSON text
 * and buffer), the answer's text and its parse — about 4× the spec's JSON — until it returns; at
 * the size budget (1.5 MiB) 64 of them would be ~400 MiB at once, the configurator's whole memory
 * limit. So the number in flight is bounded by bytes as well as by the write concurrency: small
 * configs keep the full concurrency, configs at the budget get a few writes at a time (the API
 * server stores such objects one after the other anyway).
 */
import { configBytes } from '../build/index.js';
import type { NetworkConfigRevision } from '@nodenet/api';

/** Spec JSON in flight at once, summed over the writes (~4× that in memory). */
export const IN_FLIGHT_SPEC_BYTES = 8 * 1024 * 1024;

/** Config bytes per revision hash (a node's spec is a subset of its revision's config). */
const bytesByHash = new Map<string, number>();

function revisionBytes(r: NetworkConfigRevision): number {
  let n = bytesByHash.get(r.spec.hash);
  if (n === undefined) {
    if (bytesByHash.size >= 16) bytesByHash.clear();
    bytesByHash.set(r.spec.hash, (n = configBytes(r.spec.config)));
  }
  return n;
}

/** Writes in flight for assignments to `revisions`: at most `concurrency`, at least one. */
export function assignConcurrency(revisions: readonly NetworkConfigRevision[], concurrency: number): number {
  const largest = Math.max(1, ...revisions.map(revisionBytes));
  return Math.max(1, Math.min(concurrency, Math.floor(IN_FLIGHT_SPEC_BYTES / largest)));
}
