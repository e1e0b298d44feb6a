/**
 * `ip prefix-list` / `ipv6 prefix-list` lines, shared by the VRFs' lists (sections.ts) and the
 * BGPPeerings' (peering-sections.ts). Pure.
 */
import type { LineBuilder } from './line-builder.js';
import type { Family } from './vocabulary.js';
import type { PrefixLines } from './seq-lines.js';

export const ipKeyword = (family: Family): string => (family === 4 ? 'ip' : 'ipv6');

/** One list's lines; the text before the sequence number is made once per list, not per line. */
export function writePrefixList(out: LineBuilder, family: Family, name: string, lines: PrefixLines): void {
  if (lines.length === 0) return;
  const head = `${ipKeyword(family)} prefix-list ${name} seq `;
  const { items, prefixes } = lines;
  for (let i = 0; i < items.length; i++) {
    const l = items[i]!;
    const line = `${head}${l.seq} ${l.action ?? 'permit'} ${prefixes[i]}`;
    if (l.ge === undefined && l.le === undefined) out.line(line);
    else if (l.le === undefined) out.line(`${line} ge ${l.ge}`);
    else if (l.ge === undefined) out.line(`${line} le ${l.le}`);
    else out.line(`${line} ge ${l.ge} le ${l.le}`);
  }
}
