/**
 * Terminal escapes (issue #37): an agent's `status.message` with a screen clear and a forged line,
 * and a bidi override, printed by `status`, `nodes`, `why` and `history`: what reaches the terminal
 * has no control character, and the forged text stays inside its own line, visibly escaped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeControls } from '@nodenet/api';
import {
  at,
  cli,
  createNodeConfig,
  createNodes,
  createRevision,
  inputsOf,
  layer2,
  startTestCluster,
  type TestCluster,
} from './support.js';

const HOSTILE = '\x1b[2J\x1b[Hbad\nRevision 7: all nodes up-to-date \u202eevil\x9b31m';
// Any control a terminal acts on: C0 but newline, DEL, C1, and the bidi/format controls.
// eslint-disable-next-line no-control-regex -- the test looks for control characters
const CONTROLS = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

let tc: TestCluster;
beforeAll(async () => {
  tc = await startTestCluster();
  await createNodes(tc, { 'node-1': {}, 'node-2': {} });
  const rev = await createRevision(tc, 1, inputsOf([layer2('l2-100', 100)]), {
    total: 2,
    ongoing: 1,
    startedAt: at(600),
  });
  await createNodeConfig(tc, 'node-1', rev, {
    configStatus: 'provisioning',
    message: HOSTILE,
    secondsAgo: 10,
  });
}, 30_000);
afterAll(async () => tc?.stop());

describe('what the plugin prints from the server is escaped', () => {
  it.each([[['status']], [['nodes']], [['why', 'node-1']], [['history']]])('%j', async (args) => {
    const r = await cli(tc, args);
    expect(r.out + r.err).not.toMatch(CONTROLS);
    expect(r.out).not.toMatch(/^Revision 7: all nodes up-to-date/m);
    if (args[0] === 'why' || args[0] === 'status') expect(r.out).toContain('\\x1b[2J\\x1b[Hbad');
  });

  it('escapes C0, C1 and bidi controls; a newline only where a text may span lines', () => {
    expect(escapeControls(HOSTILE)).toBe(
      '\\x1b[2J\\x1b[Hbad\\x0aRevision 7: all nodes up-to-date \\u{202e}evil\\x9b31m',
    );
    expect(escapeControls('a\nb\tc', true)).toBe('a\nb\tc');
    expect(escapeControls('plain text, ümlaut, 中文')).toBe('plain text, ümlaut, 中文');
  });
});
