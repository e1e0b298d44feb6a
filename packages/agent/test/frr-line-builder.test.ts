/**
 * The line builder of frr.conf (frr/line-builder.ts): whatever the number of lines, around its chunk
 * size of 1,024 and its block size of 4,096 too, its text is the lines joined by newlines with a
 * final newline, each line with the indentation set when it was added.
 */
import { describe, expect, it } from 'vitest';
import { LineBuilder } from '../src/frr/render/line-builder.js';

describe('LineBuilder', () => {
  for (const n of [0, 1, 2, 1023, 1024, 1025, 2047, 2048, 3000, 4095, 4096, 4097, 8193, 20000]) {
    it(`gives ${n} lines as they were added, each ended by a newline`, () => {
      const lines = Array.from({ length: n }, (_, i) => `line ${i}`);
      const out = new LineBuilder();
      for (const l of lines) out.line(l);
      expect(out.length).toBe(n);
      expect(out.text()).toBe(lines.join('\n') + '\n');
    });
  }

  it('puts the indentation set at the time before each line', () => {
    const out = new LineBuilder();
    out.line('router bgp 1');
    out.indent = ' ';
    out.line('neighbor a activate');
    out.line('neighbor b activate');
    out.indent = '';
    out.line('exit');
    expect(out.text()).toBe('router bgp 1\n neighbor a activate\n neighbor b activate\nexit\n');
  });
});
