import { describe, expect, it } from 'vitest';
import { OptionError } from '@nodenet/api';
import { formatDuration, parseDuration, parseLogLevel } from '@nodenet/kube';

describe('parseDuration (one grammar for every flag and RolloutPolicy field)', () => {
  it.each([
    ['10m', 600_000],
    ['30s', 30_000],
    ['1h30m', 5_400_000],
    ['1m30s', 90_000],
    ['250ms', 250],
    ['2h', 7_200_000],
    ['1.5s', 1500],
    ['0', 0],
    ['0s', 0],
  ])('duration %s = %d ms', (text, ms) => expect(parseDuration('--x', text)).toBe(ms));

  it.each(['10', '5x', 'm', '1h 30m', '-1s', '', '5m junk'])('rejects %j naming the flag', (text) => {
    expect(() => parseDuration('--config-timeout', text)).toThrow(OptionError);
    expect(() => parseDuration('--config-timeout', text)).toThrow(/^--config-timeout: must be a duration/);
  });

  it('formats milliseconds in the same grammar', () => {
    for (const text of ['0s', '250ms', '1.5s', '1m30s', '10m', '1h30m'])
      expect(formatDuration(parseDuration('--x', text))).toBe(text);
  });
});

describe('parseLogLevel', () => {
  it('accepts pino levels and names the flag otherwise', () => {
    expect(parseLogLevel('--log-level', 'debug')).toBe('debug');
    expect(() => parseLogLevel('--log-level', 'loud')).toThrow(/^--log-level: must be one of fatal, error/);
  });
});
