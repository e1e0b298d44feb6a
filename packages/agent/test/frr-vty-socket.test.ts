/** The answers of FRR's vty socket protocol (frr/vty-socket.ts): output, then `\0\0\0<status>`. */
import { describe, expect, it } from 'vitest';
import { splitVtyAnswers } from '@nodenet/agent';

const answer = (text: string, status = 0): Buffer =>
  Buffer.concat([Buffer.from(text), Buffer.from([0, 0, 0, status])]);

describe('vty socket answers', () => {
  it('splits back-to-back answers, empty ones included, and keeps a refusal as its message', () => {
    const data = Buffer.concat([
      answer(''),
      answer('frr version 8.4.4\n!\n'),
      answer('% [BGP] Unknown command: show nothing\n', 2),
      answer(''),
    ]);
    expect(splitVtyAnswers(data)).toEqual([
      { ok: true, text: '' },
      { ok: true, text: 'frr version 8.4.4\n!\n' },
      { ok: false, error: '% [BGP] Unknown command: show nothing' },
      { ok: true, text: '' },
    ]);
  });

  it('leaves an answer whose status has not come yet', () => {
    const whole = Buffer.concat([answer('a\n'), answer('{"x":1}')]);
    expect(splitVtyAnswers(whole.subarray(0, whole.length - 1))).toEqual([{ ok: true, text: 'a\n' }]);
    expect(splitVtyAnswers(whole.subarray(0, whole.length - 3))).toEqual([{ ok: true, text: 'a\n' }]);
    expect(splitVtyAnswers(whole)).toHaveLength(2);
  });
});
