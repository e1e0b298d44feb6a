/**
 * `ip prefix-list` / `ipv6 prefix-list` lines, shared by the VRFs' lists (sections.ts) and the
 * BGPPeerings' (peering-sections.ts). Pure.
 */
import type { LineBuilder } from './line-builder.js';
import type { Family, PrefixLine } from './model.js';

export const ipKeyword = (family: Family): string => (family === 4 ? 'ip' : 'ipv6');

/** One list's lines; the text before the sequence number is made once per list, not per line. */
export function writePrefixList(
  out: LineBuilder,
  family: Family,
  name: string,
  lines: readonly PrefixLine[],
): void {
  if (lines.length === 0) return;
  const head = `${ipKeyword(family)} prefix-list ${name} seq `;
  for (const l of lines) {
    const line = `${head}${l.seq} ${l.action} ${l.prefix}`;
    if (l.ge === undefined && l.le === undefined) out.line(line);
    else if (l.le === undefined) out.line(`${line} ge ${l.ge}`);
    else if (l.ge === undefined) out.line(`${line} le ${l.le}`);
    else out.line(`${line} ge ${l.ge} le ${l.le}`);
  }
}
