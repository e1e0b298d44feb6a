/**
 * BGP passwords on the agent (issue 41): the renderer's `password` line in FRR's order, the
 * redaction every shown text goes through, and the password book (values checked against the
 * revision's hash, the previous spec's kept for a restore, a 0600 file).
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { passwordDigest, passwordHash, type NodeBgpPeeringEntry } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import {
  FrrRenderError,
  hostPlan,
  hostPlanLines,
  PasswordBook,
  PasswordUnavailableError,
  PASSWORDS_FILE,
  redactPasswords,
  renderFrrConfig,
} from '@nodenet/agent';
import { peering, settings } from './frr-fixtures.js';

const SALT = 'salt-of-this-cluster';
const hashOf = (v: string): string => passwordHash(SALT, passwordDigest(v));
const b64 = (v: string): string => Buffer.from(v).toString('base64');
const TEMPLATE = readFileSync(new URL('golden/frr/base.conf.tpl', import.meta.url), 'utf8');

const withPassword = (name: string, value: string, extra: Partial<NodeBgpPeeringEntry> = {}) =>
  peering({
    name,
    neighbors: ['192.0.2.1'],
    password: { secret: `${name}-pw`, key: 'password', hash: hashOf(value) },
    ...extra,
  });

describe('rendering a peering with a password', () => {
  it("puts `password` after BFD and before ebgp-multihop and timers, as FRR's running config shows it", () => {
    const text = renderFrrConfig(
      {
        vrf: [],
        routingTable: [],
        bgpPeering: [
          withPassword('router', 's3cr"et$%&', {
            bfd: { detectMultiplier: 5 },
            ebgpMultihop: 3,
            holdTime: 9,
            keepaliveTime: 3,
          }),
        ],
      },
      { ...settings, passwords: (h) => (h === hashOf('s3cr"et$%&') ? 's3cr"et$%&' : undefined) },
      TEMPLATE,
    );
    const group = text.split('\n').filter((l) => l.startsWith(' neighbor pp_router '));
    expect(group).toEqual([
      ' neighbor pp_router peer-group',
      ' neighbor pp_router remote-as external',
      ' neighbor pp_router bfd',
      ' neighbor pp_router bfd profile pp_router',
      ' neighbor pp_router password s3cr"et$%&',
      ' neighbor pp_router ebgp-multihop 3',
      ' neighbor pp_router timers 3 9',
    ]);
  });

  it('refuses a peering whose password was not read, naming the Secret and never a value', () => {
    const render = () =>
      renderFrrConfig(
        { vrf: [], routingTable: [], bgpPeering: [withPassword('router', 'unread-value')] },
        { ...settings, passwords: () => undefined },
        TEMPLATE,
      );
    expect(render).toThrow(FrrRenderError);
    expect(render).toThrow('bgpPeering[0].password: "router-pw" has no password read for this revision');
  });

  it('refuses a value outside the grammar (a space would end the token, `!` starts a comment)', () => {
    expect(() =>
      renderFrrConfig(
        { vrf: [], routingTable: [], bgpPeering: [withPassword('router', 'a b')] },
        { ...settings, passwords: () => 'a b' },
        TEMPLATE,
      ),
    ).toThrow(/not a TCP-MD5 password FRR takes/);
  });
});

describe('redactPasswords', () => {
  it('prints `password <redacted>` wherever FRR text names a password, and nothing else changes', () => {
    const text = [
      'missing 1: router bgp 65001 / neighbor pp_x password new-one',
      'unexpected 1: router bgp 65001 / no neighbor pp_x password old-one',
      '% Unknown command: neighbor pp_y password  spaced',
      'neighbor pp_z remote-as external',
    ].join('\n');
    const out = redactPasswords(text);
    expect(out).toBe(
      [
        'missing 1: router bgp 65001 / neighbor pp_x password <redacted>',
        'unexpected 1: router bgp 65001 / no neighbor pp_x password <redacted>',
        '% Unknown command: neighbor pp_y password  <redacted>',
        'neighbor pp_z remote-as external',
      ].join('\n'),
    );
    expect(redactPasswords(out)).toBe(out);
  });
});

describe('host plan (kubectl nodenet diff --host)', () => {
  it('shows a rotation as the password line changing, `<redacted>`, without reading any Secret', () => {
    const spec = (value: string) => ({
      vrf: [],
      routingTable: [],
      layer2: [],
      bgpPeering: [withPassword('router', value)],
    });
    const plan = hostPlan({
      previous: spec('old-value'),
      next: spec('new-value'),
      template: TEMPLATE,
      settings: { host: { vtepAddress: '10.50.0.1' }, frr: settings },
    });
    expect(plan.error).toBeUndefined();
    const lines = hostPlanLines(plan).join('\n');
    expect(lines).toContain('neighbor pp_router password <redacted>');
    expect(lines).not.toMatch(/standin|old-value|new-value/);
    expect(plan.frr.steps.map((s) => `${s.change} ${s.line}`)).toEqual([
      'remove neighbor pp_router password <redacted>',
      'add neighbor pp_router password <redacted>',
    ]);
  });
});

describe('PasswordBook', () => {
  const setup = (initial: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'nodenet-password-book-'));
    const secrets: Record<string, Record<string, string> | undefined> = {
      'nodenet-bgp-password-salt': { salt: b64(SALT) },
    };
    for (const [name, value] of Object.entries(initial)) secrets[name] = { password: b64(value) };
    const reads: string[] = [];
    const reader = async (name: string) => {
      reads.push(name);
      return secrets[name];
    };
    return { dir, secrets, reads, book: new PasswordBook(dir, 'nodenet-bgp-passwords', reader), reader };
  };
  const spec = (value: string) => ({ bgpPeering: [withPassword('router', value)] });

  it("reads a Secret whose value has the revision's hash, and keeps it in a 0600 file", async () => {
    const { dir, book } = setup({ 'router-pw': 'first' });
    await book.prepare(spec('first'));
    expect(book.lookup(hashOf('first'))).toBe('first');
    expect(statSync(join(dir, PASSWORDS_FILE)).mode & 0o777).toBe(0o600);
  });

  it('refuses a value that is not the revision’s (changed since), naming the Secret and never a value', async () => {
    const { book } = setup({ 'router-pw': 'second' });
    const err = await book.prepare(spec('first')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PasswordUnavailableError);
    expect((err as Error).message).toBe(
      'BGP password Secret nodenet-bgp-passwords/router-pw key password: the value changed since this revision was built (a newer revision carries it)',
    );
  });

  it('after a rotation the old value is still there for a restore, also for a restarted agent; only the last two specs are kept', async () => {
    const { dir, secrets, reads, book, reader } = setup({ 'router-pw': 'first' });
    await book.prepare(spec('first'));
    secrets['router-pw'] = { password: b64('second') };
    await book.prepare(spec('second'));
    // The Secret holds `second` now; a restarted agent restores the applied spec from the file.
    const restarted = new PasswordBook(dir, 'nodenet-bgp-passwords', reader);
    reads.length = 0;
    await restarted.prepare(spec('first'));
    expect(reads).toEqual([]);
    expect(restarted.lookup(hashOf('first'))).toBe('first');
    secrets['router-pw'] = { password: b64('third') };
    await restarted.prepare(spec('third'));
    const kept = JSON.parse(readFileSync(join(dir, PASSWORDS_FILE), 'utf8')) as { values: object };
    expect(Object.keys(kept.values).sort()).toEqual([hashOf('first'), hashOf('third')].sort());
  });

  it('a missing Secret or salt is named', async () => {
    const { book, secrets } = setup({});
    await expect(book.prepare(spec('x'))).rejects.toThrow(
      'BGP password Secret nodenet-bgp-passwords/router-pw key password: the Secret does not exist',
    );
    secrets['nodenet-bgp-password-salt'] = {};
    await expect(book.prepare(spec('x'))).rejects.toThrow('the cluster salt is missing');
  });
});
