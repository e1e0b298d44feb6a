/**
 * docs/operations.md walks through "why is node X behind?", what a change will do, and a retry with
 * the plugin's real output: each block quoted there is a golden file the plugin tests produce, so the
 * walk-through cannot drift from what `kubectl nodenet` prints.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (relative: string): string => readFileSync(new URL(relative, import.meta.url), 'utf8');
const QUOTED = [
  'status-complete-held-back.txt',
  'why-queued.txt',
  'why-not-ready.txt',
  'why-rolled-back.txt',
  'diff-held-back.txt',
  'diff-host-bad-change.txt',
  'nodes-retry-history.txt',
  'history-retry.txt',
];

describe('docs/operations.md quotes the plugin output', () => {
  it.each(QUOTED)('%s verbatim', (file) => {
    const operations = read('../../../docs/operations.md');
    expect(operations).toContain(read(`golden/${file}`).trimEnd());
  });
});
