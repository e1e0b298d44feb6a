import { describe, expect, it } from 'vitest';
import { customResourceDefinition, OptionError } from '@nodenet/api';
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

describe('one duration grammar for the RolloutPolicy CRD and the flags', () => {
  // Surrounding whitespace aside (a flag's value is trimmed), both accept exactly the same text.
  /** The pattern the API server enforces on each duration field of a RolloutPolicy, from the CRD. */
  function crdPatterns(): Record<string, string> {
    const crd = customResourceDefinition('RolloutPolicy') as {
      spec: {
        versions: {
          schema: {
            openAPIV3Schema: { properties: { spec: { properties: Record<string, { pattern?: string }> } } };
          };
        }[];
      };
    };
    const fields = crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties;
    const names = ['preconfigTimeout', 'configTimeout', 'notReadyTimeout', 'minSuccessTime'];
    return Object.fromEntries(names.map((n) => [n, fields[n]?.pattern ?? '(none)']));
  }
  const accepts = (text: string): boolean => {
    try {
      parseDuration('--x', text);
      return true;
    } catch {
      return false;
    }
  };
  const corpus = [
    ...[
      '0',
      '0s',
      '0ms',
      '250ms',
      '1.5s',
      '30s',
      '10m',
      '2h',
      '1h30m',
      '1m30s',
      '1h1m1s1ms',
      '007s',
      '1.25h',
    ],
    ...[
      '',
      '10',
      '00',
      '-1s',
      '+1s',
      '1.s',
      '.5s',
      '1e3ms',
      '1 s',
      '1h 30m',
      '5m junk',
      'm',
      's',
      '1d',
      '1us',
      '1S',
    ],
    ...['1ms0', 'ms', '1h-', '0h0', '1,5s', '१s', '1\n', '0x10s'],
  ];

  it.each(corpus)(
    '%j: accepted by parseDuration exactly when every CRD duration field accepts it',
    (text) => {
      for (const [field, pattern] of Object.entries(crdPatterns()))
        expect({ field, accepted: new RegExp(pattern).test(text) }).toEqual({
          field,
          accepted: accepts(text),
        });
    },
  );
});

describe('parseLogLevel', () => {
  it('accepts pino levels and names the flag otherwise', () => {
    expect(parseLogLevel('--log-level', 'debug')).toBe('debug');
    expect(() => parseLogLevel('--log-level', 'loud')).toThrow(/^--log-level: must be one of fatal, error/);
  });
});
