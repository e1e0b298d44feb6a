import { describe, expect, it } from 'vitest';
import type { ObservedState } from '@nodenet/api';
import { boundObserved, boundText, buildStatus, MAX_MESSAGE_BYTES } from '@nodenet/agent';

describe('boundText', () => {
  it('keeps a text that fits', () => {
    expect(boundText('health check failed: bgp')).toBe('health check failed: bgp');
  });
  it('cuts a long text to the bound, saying how much was left out', () => {
    const text = `vtysh -C: ${'x'.repeat(1024 * 1024)}`;
    const cut = boundText(text);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(cut.startsWith('vtysh -C: xxx')).toBe(true);
    const left = Number(/… \[(\d+) more bytes; whole text in the agent's log\]$/.exec(cut)?.[1]);
    expect(Buffer.byteLength(cut.slice(0, cut.indexOf(' … ['))) + left).toBe(Buffer.byteLength(text));
  });
  it('never splits a UTF-8 character', () => {
    const cut = boundText('é'.repeat(5000), 101);
    expect(cut).not.toContain('\uFFFD');
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(101);
  });
  it('a status built from a 1 MB message carries at most 2 KiB of it, in the message and every condition', () => {
    const status = buildStatus(
      {
        configStatus: 'invalid',
        revision: 'a'.repeat(64),
        reason: 'FrrApplyFailed',
        message: 'e'.repeat(1 << 20),
      },
      new Date(),
    );
    expect(Buffer.byteLength(status.message!)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    for (const c of status.conditions ?? [])
      expect(Buffer.byteLength(c.message ?? '')).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(status.failureCause).toBe('ChangeFailed');
  });
});

describe('boundText escapes controls (issue #37)', () => {
  it('writes a terminal escape or a bidi override from FRR visibly, keeping newlines', () => {
    expect(boundText('vtysh: \x1b[2J\u202eoops\nline 2')).toBe('vtysh: \\x1b[2J\\u{202e}oops\nline 2');
  });
});

describe('boundObserved', () => {
  it('lists at most the bound of sessions and VNIs and says how many were left out', () => {
    const observed: ObservedState = {
      bgpSummary: '1000/1000',
      bgpSessions: Array.from({ length: 1000 }, (_, i) => ({
        vrf: 'default',
        peer: `10.0.${i >> 8}.${i & 255}`,
        state: 'Established',
      })),
      vnis: Array.from({ length: 300 }, (_, i) => ({ vni: 100 + i, type: 'L2' })),
    } as ObservedState;
    const out = boundObserved(observed, 256);
    expect(out.bgpSessions).toHaveLength(256);
    expect(out.vnis).toHaveLength(256);
    expect(out.bgpSummary).toBe('1000/1000');
    expect(out.error).toBe('744 more BGP sessions not listed; 44 more VNIs not listed');
    expect(boundObserved({ bgpSummary: '1/1' })).toEqual({ bgpSummary: '1/1' });
  });

  it('leaves out an entry whose names the CRD would refuse, so the rest is still written (issue #37)', () => {
    const ok = { vrf: 'default', peer: '10.0.0.1', state: 'Idle (Admin)' };
    const out = boundObserved({
      bgpSessions: [
        ok,
        { vrf: 'default', peer: '<script>', state: 'Established' },
        { ...ok, peer: 'x'.repeat(65) },
      ],
    });
    expect(out.bgpSessions).toEqual([ok]);
    expect(out.error).toBe('2 entries with names the status can not hold not listed');
  });
});
