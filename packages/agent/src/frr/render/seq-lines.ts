/**
 * One family's lines of a prefix list while its items are read, kept unique by sequence number and
 * handed out in sequence order. Items nearly always come in increasing order: such a list needs no
 * set to find a repeated number and no sort (at 200 VRFs, 3,200 lists); the first item out of order
 * makes the set, and the list is sorted once at the end.
 *
 * A line is the checked item itself (the spec's object; a loopback's line, loopback-lines.ts) and
 * its prefix's canonical text (a cached string), two references: no object is made per line. Why:
 * the model is live while the rest of it is built and rendered, and each young-generation collection
 * in that time copies it object by object; with an object per line (40,000 at 200 VRFs) that copying
 * grew with the config's size, and the render's cost per line with it. The model refers to the
 * spec's items, so it is rendered before the spec changes (renderFrrConfig does both at once). Pure.
 */

/** What a line is rendered from: a checked item's sequence number, action (none: permit) and range. */
export interface PrefixLineItem {
  readonly seq: number;
  readonly action?: 'permit' | 'deny';
  readonly ge?: number;
  readonly le?: number;
}

/** A list's lines: item `i` with the canonical text `prefixes[i]` of its prefix, by sequence number. */
export interface PrefixLines {
  readonly length: number;
  readonly items: readonly PrefixLineItem[];
  readonly prefixes: readonly string[];
}

export class SeqLines implements PrefixLines {
  readonly items: PrefixLineItem[] = [];
  readonly prefixes: string[] = [];
  private maxSeq = 0;
  /** The sequence numbers so far, made at the first line out of order (until it is sorted). */
  private seqs: Set<number> | undefined;

  get length(): number {
    return this.items.length;
  }

  /** The largest sequence number so far (0: none). */
  get max(): number {
    return this.maxSeq;
  }

  /** Adds the line; false (and nothing added) when its sequence number is taken. */
  add(item: PrefixLineItem, prefix: string): boolean {
    if (item.seq <= this.maxSeq) {
      this.seqs ??= new Set(this.items.map((l) => l.seq));
      if (this.seqs.has(item.seq)) return false;
    } else this.maxSeq = item.seq;
    this.seqs?.add(item.seq);
    this.items.push(item);
    this.prefixes.push(prefix);
    return true;
  }

  /** The lines by sequence number. */
  sorted(): PrefixLines {
    if (this.seqs === undefined) return this;
    const { items, prefixes } = this;
    const order = items.map((_, i) => i).sort((a, b) => items[a]!.seq - items[b]!.seq);
    const byOrder = { items: order.map((i) => items[i]!), prefixes: order.map((i) => prefixes[i]!) };
    for (let k = 0; k < order.length; k++) {
      items[k] = byOrder.items[k]!;
      prefixes[k] = byOrder.prefixes[k]!;
    }
    this.seqs = undefined;
    return this;
  }
}
