/**
 * BGP password references in the build step (issue 41): a revision carries the Secret, the key and
 * the salted hash, never the value; a rotation is a new revision; a peering whose Secret cannot be
 * read is refused naming it and holds back only itself (its entry in force, with its hash, stays).
 */
import {
  passwordDigest,
  passwordHash,
  type BGPPeering,
  type Inputs,
  type NetworkConfigRevision,
  type PasswordLookup,
  type PasswordSource,
} from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { buildRevision } from '@nodenet/configurator';

const NOW = Date.parse('2025-01-01T00:00:00Z');
const NS = 'nodenet-bgp-passwords';
const SALT = 'cluster-salt';
/** Peerings here are in the default VRF: the site allows it (issue #37's guard). */
const SITE = { underlay: { defaultVrfPeering: true } };

const peering = (name: string, address: string, secret?: string): BGPPeering => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'BGPPeering',
  metadata: { name, generation: 1 },
  spec: {
    neighbor: { addresses: [address] },
    remoteASN: 65010,
    ...(secret ? { passwordSecretRef: { name: secret } } : {}),
  },
});
const inputs = (...bgpPeering: BGPPeering[]): Inputs => ({
  vrf: [],
  layer2: [],
  routingTable: [],
  bgpPeering,
});

/** Secrets as the configurator's cache knows them: name → key → value (hashed here, as the cache does). */
const secrets = (all: Record<string, Record<string, string>>): PasswordSource => ({
  namespace: NS,
  lookup: (name, key): PasswordLookup => {
    const s = all[name];
    if (!s) return { kind: 'no-secret' };
    const v = s[key];
    if (v === undefined) return { kind: 'no-key' };
    return { kind: 'ok', hash: passwordHash(SALT, passwordDigest(v)) };
  },
});

const hashOf = (v: string): string => passwordHash(SALT, passwordDigest(v));

const created = (r: ReturnType<typeof buildRevision>): NetworkConfigRevision => {
  if (r.decision.action !== 'create') throw new Error(`no revision: ${JSON.stringify(r.decision)}`);
  return { ...r.decision.revision, status: { completedAt: '2025-01-01T00:00:00Z' } };
};

describe('buildRevision with BGP password references', () => {
  it('the revision carries the Secret, the key and the salted hash, never the value', () => {
    const rev = created(
      buildRevision(inputs(peering('router', '192.0.2.1', 'router-pw')), [], NOW, {
        ...SITE,
        passwords: secrets({ 'router-pw': { password: 'very-secret-1' } }),
      }),
    );
    expect(rev.spec.config.bgpPeering?.[0]?.password).toEqual({
      secret: 'router-pw',
      key: 'password',
      hash: passwordHash(SALT, passwordDigest('very-secret-1')),
    });
    expect(JSON.stringify(rev)).not.toContain('very-secret-1');
  });

  it('a rotation of the Secret is a new revision; the same value again is none', () => {
    const opts = (pw: string) => ({ ...SITE, passwords: secrets({ 'router-pw': { password: pw } }) });
    const rev1 = created(
      buildRevision(inputs(peering('router', '192.0.2.1', 'router-pw')), [], NOW, opts('a1')),
    );
    const same = buildRevision(inputs(peering('router', '192.0.2.1', 'router-pw')), [rev1], NOW, opts('a1'));
    expect(same.decision.action).toBe('skip');
    const rotated = created(
      buildRevision(inputs(peering('router', '192.0.2.1', 'router-pw')), [rev1], NOW, opts('a2')),
    );
    expect(rotated.spec.hash).not.toBe(rev1.spec.hash);
    expect(rotated.spec.number).toBe(rev1.spec.number + 1);
  });

  it('a missing Secret, a missing key or another namespace refuses only that peering, naming the field; the other builds', () => {
    const wrongNs = peering('ns', '192.0.2.3', 'router-pw');
    wrongNs.spec.passwordSecretRef = { name: 'router-pw', namespace: 'kube-system' };
    const noKey = peering('nokey', '192.0.2.4', 'router-pw');
    noKey.spec.passwordSecretRef = { name: 'router-pw', key: 'md5' };
    const r = buildRevision(
      inputs(peering('missing', '192.0.2.1', 'absent'), peering('plain', '192.0.2.2'), wrongNs, noKey),
      [],
      NOW,
      { ...SITE, passwords: secrets({ 'router-pw': { password: 'x1' } }) },
    );
    const rev = created(r);
    expect(rev.spec.config.bgpPeering?.map((p) => p.name)).toEqual(['plain']);
    const message = (name: string): string | undefined =>
      r.inputStatusUpdates
        .find((u) => u.object.metadata.name === name)
        ?.status.conditions?.find((c) => c.type === 'Accepted' && c.status === 'False')?.message;
    expect(message('missing')).toContain(
      `BGPPeering missing: spec.passwordSecretRef.name: names no Secret in namespace ${NS} (got "absent")`,
    );
    expect(message('ns')).toContain(
      `BGPPeering ns: spec.passwordSecretRef.namespace: must be ${NS}: agents read password Secrets in that namespace only (got "kube-system")`,
    );
    expect(message('nokey')).toContain(
      `BGPPeering nokey: spec.passwordSecretRef.key: Secret ${NS}/router-pw has no key md5 (got "md5")`,
    );
  });

  it('a Secret deleted after the revision: the peering is refused and its entry in force, with its hash, stays', () => {
    const opts = { ...SITE, passwords: secrets({ 'router-pw': { password: 'kept' } }) };
    const rev1 = created(
      buildRevision(
        inputs(peering('router', '192.0.2.1', 'router-pw'), peering('b', '192.0.2.9')),
        [],
        NOW,
        opts,
      ),
    );
    const other = peering('c', '192.0.2.10');
    const r = buildRevision(
      inputs(peering('router', '192.0.2.1', 'router-pw'), peering('b', '192.0.2.9'), other),
      [rev1],
      NOW,
      { ...SITE, passwords: secrets({}) },
    );
    const rev2 = created(r);
    expect(rev2.spec.config.bgpPeering?.find((p) => p.name === 'router')).toEqual(
      rev1.spec.config.bgpPeering?.find((p) => p.name === 'router'),
    );
    expect(rev2.spec.config.bgpPeering?.map((p) => p.name)).toEqual(['b', 'c', 'router']);
  });

  it('a `password` written into the spec by hand never reaches the revision: only the build sets it', () => {
    const forged = peering('router', '192.0.2.1');
    (forged.spec as Record<string, unknown>).password = {
      secret: 'other-team',
      key: 'password',
      hash: hashOf('x'),
    };
    const rev = created(buildRevision(inputs(forged), [], NOW, { ...SITE, passwords: secrets({}) }));
    expect(rev.spec.config.bgpPeering?.[0]).not.toHaveProperty('password');
  });

  it('a value FRR cannot take, or no salt, refuses the peering without quoting the value', () => {
    const r = buildRevision(inputs(peering('router', '192.0.2.1', 'router-pw')), [], NOW, {
      ...SITE,
      passwords: { namespace: NS, lookup: () => ({ kind: 'malformed' }) },
    });
    const text = JSON.stringify(r.inputStatusUpdates);
    expect(text).toContain('the value is not a TCP-MD5 password FRR takes');
    const noSalt = buildRevision(inputs(peering('router', '192.0.2.1', 'router-pw')), [], NOW, {
      ...SITE,
      passwords: { namespace: NS, lookup: () => ({ kind: 'no-salt' }) },
    });
    expect(JSON.stringify(noSalt.inputStatusUpdates)).toContain('nodenet-bgp-password-salt');
  });
});
