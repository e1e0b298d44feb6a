/**
 * BGP passwords by reference (issue 41). Every agent can read every NodeConfig and revision, so a
 * password never enters one: a revision carries the Secret's name, the key and a salted hash of the
 * value (`BgpPasswordRef`). The hash makes a rotation a new revision (rolled out gradually and undone
 * on failure like any change) and lets an agent check that the value it reads is the one the
 * revision was built with. The salt is per cluster, kept in a Secret next to the passwords
 * (`PASSWORD_SALT_SECRET`), so a reader of revisions cannot test guesses of a short password offline.
 *
 * `resolvePeeringPasswords` is the build's first step for peerings (pure): it puts each reference's
 * hash into the peering (`spec.password`, which merging copies into the revision) or refuses the
 * peering naming the Secret, the key or the namespace at fault; a refused peering holds back only
 * itself (held-back/inputs.ts, `refusedFirst`). No problem ever quotes a Secret's value.
 */
import { createHash, createHmac } from 'node:crypto';
import { BGP_PASSWORD_PATTERN } from '../grammar/patterns.js';
import { DEFAULT_PASSWORD_KEY, type BgpPasswordRef } from '../resources/bgp-peering.js';
import type { BGPPeering } from '../resources/objects.js';
import { problem, type Problem } from '../validation/problem.js';

/** The Secret (in the password namespace) whose `salt` key salts every password hash of the cluster. */
export const PASSWORD_SALT_SECRET = 'nodenet-bgp-password-salt';
export const PASSWORD_SALT_KEY = 'salt';
/**
 * The namespace of the password Secrets when the deploy says nothing else: a namespace of their own
 * (deploy/bgp-passwords.yaml), so that agents may read these Secrets and no other.
 */
export const DEFAULT_PASSWORD_NAMESPACE = 'nodenet-bgp-passwords';

const PASSWORD_RE = new RegExp(BGP_PASSWORD_PATTERN);

/** Whether a Secret's value can be rendered as FRR's `neighbor … password` (invariant 6). */
export const isBgpPassword = (value: string): boolean => PASSWORD_RE.test(value);

/**
 * The SHA-256 of a password's bytes: what the configurator's Secret cache keeps instead of the value
 * (never written anywhere; unsalted, so it is only an input of `passwordHash`).
 */
export const passwordDigest = (value: Uint8Array | string): string =>
  createHash('sha256').update(value).digest('hex');

/**
 * The salted hash a revision carries for a password: HMAC-SHA256, keyed by the cluster's salt, of
 * the value's digest. Without the salt a guess cannot be tested against it.
 */
export function passwordHash(salt: Uint8Array | string, digest: string): string {
  return `hmac-sha256:${createHmac('sha256', salt).update(digest).digest('hex')}`;
}

/** What the build knows of one Secret key (the configurator's cache; never the value itself). */
export type PasswordLookup =
  | { kind: 'ok'; hash: string }
  /** The Secret does not exist. */
  | { kind: 'no-secret' }
  /** The Secret has no such key. */
  | { kind: 'no-key' }
  /** The value cannot be a TCP-MD5 password (BGP_PASSWORD_PATTERN). */
  | { kind: 'malformed' }
  /** The cluster's salt is missing or empty: no hash can be made. */
  | { kind: 'no-salt' };

export interface PasswordSource {
  /** The one namespace password Secrets may live in (the agents read Secrets there only). */
  namespace: string;
  lookup: (secret: string, key: string) => PasswordLookup;
}

const P = 'BGPPeering';

/**
 * The peerings with their password references resolved (`spec.password`), and the problems of those
 * that cannot be: to be refused before validation. Any `spec.password` a user wrote is dropped: only
 * this step sets it.
 */
export function resolvePeeringPasswords(
  peerings: readonly BGPPeering[],
  source: PasswordSource | undefined,
): { peerings: BGPPeering[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const out = peerings.map((o): BGPPeering => {
    const { password: _stray, ...spec } = (o.spec ?? {}) as BGPPeering['spec'] & { password?: unknown };
    const ref = spec.passwordSecretRef;
    if (ref === undefined || typeof ref !== 'object' || typeof ref.name !== 'string') {
      return _stray === undefined ? o : { ...o, spec };
    }
    const at = { kind: P, name: o.metadata.name } as const;
    const key = typeof ref.key === 'string' ? ref.key : DEFAULT_PASSWORD_KEY;
    const resolved = resolveOne(at, { secret: ref.name, key, namespace: ref.namespace }, source);
    if ('problem' in resolved) {
      problems.push(resolved.problem);
      return { ...o, spec };
    }
    return { ...o, spec: { ...spec, password: resolved.password } as BGPPeering['spec'] };
  });
  return { peerings: out, problems };
}

function resolveOne(
  at: { kind: typeof P; name: string },
  { secret, key, namespace }: { secret: string; key: string; namespace: unknown },
  source: PasswordSource | undefined,
): { password: BgpPasswordRef } | { problem: Problem } {
  const field = 'spec.passwordSecretRef';
  if (source === undefined)
    return { problem: problem(at, field, secret, 'cannot be read: this build has no access to Secrets') };
  const ns = source.namespace;
  if (namespace !== undefined && namespace !== ns)
    return {
      problem: problem(
        at,
        `${field}.namespace`,
        namespace,
        `must be ${ns}: agents read password Secrets in that namespace only`,
      ),
    };
  const found = source.lookup(secret, key);
  const where = `Secret ${ns}/${secret}`;
  switch (found.kind) {
    case 'ok':
      return { password: { hash: found.hash, key, secret } };
    case 'no-secret':
      return { problem: problem(at, `${field}.name`, secret, `names no Secret in namespace ${ns}`) };
    case 'no-key':
      return { problem: problem(at, `${field}.key`, key, `${where} has no key ${key}`) };
    case 'malformed':
      // The value is never quoted: only its shape is wrong.
      return {
        problem: problem(
          at,
          `${field}.key`,
          key,
          `${where}: the value is not a TCP-MD5 password FRR takes (1–80 printable ASCII characters, no space, ! or #)`,
        ),
      };
    case 'no-salt':
      return {
        problem: problem(
          at,
          field,
          secret,
          `cannot be hashed: Secret ${ns}/${PASSWORD_SALT_SECRET} (key ${PASSWORD_SALT_KEY}) is missing or empty; deploy/ creates it and the configurator fills it`,
        ),
      };
  }
}
