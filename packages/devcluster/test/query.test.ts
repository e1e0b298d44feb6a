/** Query parameters as kube-apiserver parses them (pure). */
import { describe, expect, it } from 'vitest';
import { ApiError, parseListOptions, queryBool, queryInt } from '@nodenet/devcluster';

const q = (s: string): URLSearchParams => new URLSearchParams(s);

describe('queryBool', () => {
  it.each([
    ['watch=true', true],
    ['watch=True', true],
    ['watch=1', true],
    ['watch=yes', true],
    ['watch=', true],
    ['watch=false', false],
    ['watch=FALSE', false],
    ['watch=0', false],
    ['', undefined],
  ])('%s → %s', (s, want) => expect(queryBool(q(s), 'watch')).toBe(want));
});

describe('queryInt', () => {
  it('parses base-10 integers and refuses anything else naming the parameter', () => {
    expect(queryInt(q('limit=500'), 'limit')).toBe(500);
    expect(queryInt(q(''), 'limit')).toBeUndefined();
    expect(() => queryInt(q('limit=5x'), 'limit')).toThrow(
      'invalid value for query parameter limit: strconv.ParseInt: parsing "5x": invalid syntax',
    );
  });
});

const refusal = (s: string, watchRoute = false): string => {
  try {
    parseListOptions(q(s), watchRoute);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(422);
    return (err as Error).message;
  }
  throw new Error(`accepted: ${s}`);
};

describe('parseListOptions', () => {
  it('reads a Python-client watch (watch=True) with bookmarks and a timeout', () => {
    expect(
      parseListOptions(q('watch=True&allowWatchBookmarks=True&timeoutSeconds=30&resourceVersion=7'), false),
    ).toEqual({
      watch: true,
      allowWatchBookmarks: true,
      limit: 0,
      timeoutSeconds: 30,
      resourceVersion: '7',
    });
  });

  it('accepts a streaming list (sendInitialEvents with NotOlderThan and bookmarks)', () => {
    expect(
      parseListOptions(
        q('watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true'),
        false,
      ),
    ).toMatchObject({ watch: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' });
  });

  it.each([
    [
      'resourceVersionMatch=Newest&resourceVersion=5',
      'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
    ],
    [
      'resourceVersionMatch=Exact',
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    ],
    [
      'resourceVersionMatch=Exact&resourceVersion=0',
      'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ],
    [
      'resourceVersionMatch=NotOlderThan&resourceVersion=3&continue=abc',
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
    ],
    [
      'watch=true&resourceVersionMatch=NotOlderThan',
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    ],
    ['sendInitialEvents=true', 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    [
      'watch=true&sendInitialEvents=true&allowWatchBookmarks=true',
      'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    ],
    [
      'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan',
      'allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true',
    ],
    ['limit=-1', 'limit: Invalid value: -1: must be greater than or equal to 0'],
  ])('refuses %s', (s, cause) => {
    expect(refusal(s)).toBe(`ListOptions.meta.k8s.io "" is invalid: ${cause}`);
  });
});
