/**
 * `ip prefix-list` / `ipv6 prefix-list` lines, shared by the VRFs' lists (sections.ts) and the
 * BGPPeerings' (peering-sections.ts). Pure.
 */
import type { LineBuilder } from './line-builder.js';
import type { Family } from './model.js';
import type { PrefixLines } from './seq-lines.js';

export const ipKeyword = (family: Family): string => (family === 4 ? 'ip' : 'ipv6');

/** ` permit ` / ` deny `, the action with the spaces around it, as one constant piece. */
const ACTION_PIECE = { permit: ' permit ', deny: ' deny ' } as const;

/**
 * One list's lines; the text before the sequence number is made once per list, and a line is
 * pieces that exist anyway (the builder makes no string per line).
 */
export function writePrefixList(out: LineBuilder, family: Family, name: string, lines: PrefixLines): void {
  if (lines.length === 0) return;
  const head = `${ipKeyword(family)} prefix-list ${name} seq `;
  const { items, prefixes } = lines;
  for (let i = 0; i < items.length; i++) {
    const l = items[i]!;
    out
      .add(head)
      .add(String(l.seq))
      .add(ACTION_PIECE[l.action ?? 'permit']);
    if (l.ge === undefined && l.le === undefined) out.line(prefixes[i]!);
    else if (l.le === undefined) out.add(prefixes[i]!).add(' ge ').line(String(l.ge));
    else if (l.ge === undefined) out.add(prefixes[i]!).add(' le ').line(String(l.le));
    else out.add(prefixes[i]!).add(' ge ').add(String(l.ge)).add(' le ').line(String(l.le));
  }
}
