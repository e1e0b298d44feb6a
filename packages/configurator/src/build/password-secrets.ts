/**
 * The configurator's view of the BGP password Secrets (issue 41): an informer on Secrets in the one
 * password namespace whose cache keeps, per key, only a digest of the value and whether it is a
 * password FRR takes, never the value (`secretSummary`). The salt Secret is kept whole: its bytes
 * key every hash. Why an informer (list + watch, RBAC in deploy/configurator-rbac.yaml) rather than
 * a `get` per build: a rotation must make a new revision when it happens, without polling every
 * referenced Secret; the namespace is nodenet's own, so the watch sees nothing else.
 *
 * The salt: 32 random bytes in `PASSWORD_SALT_SECRET`, created empty by deploy/ and filled once by
 * the leader (`ensureSalt`; RBAC: `update` on that one Secret by name). Readers of revisions cannot
 * read it, so a short password cannot be guessed offline from its hash.
 */
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_PASSWORD_NAMESPACE,
  isBgpPassword,
  PASSWORD_SALT_KEY,
  PASSWORD_SALT_SECRET,
  passwordDigest,
  passwordHash,
  type PasswordSource,
} from '@nodenet/api';
import { Informer, isConflict, isNotFound, type ResourceClient, type Secret } from '@nodenet/kube';
import type { Logger } from 'pino';

/** What the cache keeps of a Secret: per key the value's digest and whether it can be a password. */
export interface SecretSummary extends Secret {
  keys: Record<string, { digest: string; password: boolean }>;
  /** The salt Secret only: the salt's bytes, base64. */
  salt?: string;
}

const decoded = (s: Secret): Map<string, Buffer> => {
  const out = new Map<string, Buffer>();
  for (const [k, v] of Object.entries(s.data ?? {})) out.set(k, Buffer.from(v, 'base64'));
  // Only on objects a server did not convert (stringData is write-only on a real API server).
  for (const [k, v] of Object.entries(s.stringData ?? {})) if (!out.has(k)) out.set(k, Buffer.from(v));
  return out;
};

/** The informer's transform: no value leaves it, only digests (and the salt of the salt Secret). */
export function secretSummary(s: Secret): SecretSummary {
  const values = decoded(s);
  const keys: SecretSummary['keys'] = {};
  for (const [k, v] of values) {
    keys[k] = { digest: passwordDigest(v), password: isBgpPassword(v.toString('latin1')) };
  }
  const salt = s.metadata.name === PASSWORD_SALT_SECRET ? values.get(PASSWORD_SALT_KEY) : undefined;
  return {
    apiVersion: s.apiVersion ?? 'v1',
    kind: 'Secret',
    metadata: {
      name: s.metadata.name,
      ...(s.metadata.namespace !== undefined ? { namespace: s.metadata.namespace } : {}),
      ...(s.metadata.resourceVersion !== undefined ? { resourceVersion: s.metadata.resourceVersion } : {}),
    },
    keys,
    ...(salt !== undefined && salt.length > 0 ? { salt: salt.toString('base64') } : {}),
  };
}

/** The build's password source over the cache (pure over what the cache holds). */
export function passwordSource(namespace: string, secrets: Informer<SecretSummary>): PasswordSource {
  return {
    namespace,
    lookup: (name, key) => {
      const saltSecret = secrets.get(PASSWORD_SALT_SECRET, namespace);
      if (saltSecret?.salt === undefined) return { kind: 'no-salt' };
      const s = secrets.get(name, namespace);
      if (!s) return { kind: 'no-secret' };
      const k = s.keys[key];
      if (!k) return { kind: 'no-key' };
      if (!k.password) return { kind: 'malformed' };
      return { kind: 'ok', hash: passwordHash(Buffer.from(saltSecret.salt, 'base64'), k.digest) };
    },
  };
}

/**
 * Fills the salt Secret once, when it exists without a salt (deploy/ creates it empty): 32 random
 * bytes, written with the resourceVersion read (a conflict: another instance was first). Returns
 * whether anything is left to do later.
 */
export async function ensureSalt(
  namespace: string,
  secrets: Informer<SecretSummary>,
  client: ResourceClient<Secret>,
  log: Logger,
): Promise<boolean> {
  const cached = secrets.get(PASSWORD_SALT_SECRET, namespace);
  if (!cached || cached.salt !== undefined) return false;
  try {
    const current = await client.get(PASSWORD_SALT_SECRET, namespace);
    if ((current.data?.[PASSWORD_SALT_KEY] ?? '') !== '') return false;
    await client.update({
      ...current,
      data: { ...current.data, [PASSWORD_SALT_KEY]: randomBytes(32).toString('base64') },
    });
    log.info({ secret: `${namespace}/${PASSWORD_SALT_SECRET}` }, 'BGP password salt created');
    return false;
  } catch (err) {
    if (isConflict(err) || isNotFound(err)) return false;
    log.warn(
      { secret: `${namespace}/${PASSWORD_SALT_SECRET}`, err: String(err) },
      'could not write the BGP password salt; will retry',
    );
    return true;
  }
}

/** The controller's side: the informer it starts with the others, and what each build gets. */
export class PasswordSecrets {
  readonly informer: Informer<SecretSummary>;

  constructor(
    private readonly client: ResourceClient<Secret>,
    readonly namespace: string = DEFAULT_PASSWORD_NAMESPACE,
    resyncMs = 0,
  ) {
    this.informer = new Informer(client as unknown as ResourceClient<SecretSummary>, {
      resyncMs,
      namespace,
      transform: secretSummary,
    });
  }

  /** The build's password source; the leader fills an empty salt first. */
  async forBuild(isLeader: boolean, log: Logger): Promise<PasswordSource> {
    if (isLeader) await ensureSalt(this.namespace, this.informer, this.client, log);
    return passwordSource(this.namespace, this.informer);
  }
}
