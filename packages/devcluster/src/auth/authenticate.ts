/**
 * Authentication for devcluster, pure apart from the random token bytes: bearer tokens mapped to
 * users, ServiceAccount tokens as the TokenRequest API issues them, and impersonation headers.
 *
 * - Every authenticated user gets the group `system:authenticated`; a request without a token is
 *   `system:anonymous` in `system:unauthenticated`.
 * - A ServiceAccount token authenticates as `system:serviceaccount:<ns>:<name>` with the groups
 *   `system:serviceaccounts` and `system:serviceaccounts:<ns>`; bound to a pod that runs on a node,
 *   the user's extra carries the pod and node (`authentication.kubernetes.io/node-name`), as
 *   kube-apiserver does since 1.30.
 * - Impersonation (`Impersonate-User`, `-Group`, `-Uid`, `Impersonate-Extra-<key>`) is allowed only
 *   when the requester may `impersonate` each of them (asked through `may`, the authorizer).
 */
import { randomBytes } from 'node:crypto';
import type { UserInfo } from './admission-policy.js';
import { pathUnescape } from '../query/request-target.js';

export const NODE_NAME_EXTRA = 'authentication.kubernetes.io/node-name';
export const ANONYMOUS: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

export interface BoundPod {
  name: string;
  uid: string;
  nodeName?: string;
}

interface Issued {
  user: UserInfo;
  /** Monotonic deadline (performance.now() ms); undefined for static tokens. */
  expiresAtMs?: number;
}

export class AuthenticationError extends Error {
  readonly code = 'AuthenticationError';
}

/**
 * A token as kept across restarts (with `--data-dir`): a real API server's tokens outlive a restart
 * (static token files, ServiceAccount tokens signed with a persistent key), so clients holding one
 * keep working. The expiry is this machine's wall clock, written and read by this process only.
 */
export interface SavedToken {
  token: string;
  user: UserInfo;
  expiresAtWallMs?: number;
}

export class TokenAuthenticator {
  private readonly tokens = new Map<string, Issued>();
  /** Called after every new token (devcluster saves them beside its data). */
  onIssue?: () => void;

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly wallNow: () => number = () => Date.now(),
  ) {}

  /** The tokens still valid, to be saved. */
  save(): SavedToken[] {
    const mono = this.now();
    const wall = this.wallNow();
    return [...this.tokens].flatMap(([token, i]) =>
      i.expiresAtMs === undefined
        ? [{ token, user: i.user }]
        : i.expiresAtMs > mono
          ? [{ token, user: i.user, expiresAtWallMs: wall + (i.expiresAtMs - mono) }]
          : [],
    );
  }

  /** Takes back saved tokens; expired ones are dropped. */
  load(saved: readonly SavedToken[]): void {
    const mono = this.now();
    const wall = this.wallNow();
    for (const t of saved) {
      if (t.expiresAtWallMs === undefined) this.tokens.set(t.token, { user: t.user });
      else if (t.expiresAtWallMs > wall)
        this.tokens.set(t.token, { user: t.user, expiresAtMs: mono + (t.expiresAtWallMs - wall) });
    }
  }

  /** A static token already issued to this user name (the admin's, after a restart). */
  staticTokenOf(username: string): string | undefined {
    for (const [token, i] of this.tokens)
      if (i.expiresAtMs === undefined && i.user.username === username) return token;
    return undefined;
  }

  /** A token for a fixed identity (the admin kubeconfig, per-identity test kubeconfigs). */
  issueStatic(user: { username: string; groups?: string[]; extra?: Record<string, string[]> }): string {
    return this.store({ user: withAuthenticated(user) });
  }

  /** What TokenRequest (`kubectl create token`) returns for a ServiceAccount. */
  issueServiceAccount(
    namespace: string,
    name: string,
    opts: { expirationSeconds?: number; pod?: BoundPod } = {},
  ): { token: string; expirationSeconds: number } {
    const expirationSeconds = opts.expirationSeconds ?? 3600;
    const extra: Record<string, string[]> = {};
    if (opts.pod) {
      extra['authentication.kubernetes.io/pod-name'] = [opts.pod.name];
      extra['authentication.kubernetes.io/pod-uid'] = [opts.pod.uid];
      if (opts.pod.nodeName) extra[NODE_NAME_EXTRA] = [opts.pod.nodeName];
    }
    const token = this.store({
      user: withAuthenticated({
        username: `system:serviceaccount:${namespace}:${name}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
        extra,
      }),
      expiresAtMs: this.now() + expirationSeconds * 1000,
    });
    return { token, expirationSeconds };
  }

  /** The user of an `Authorization` header value; anonymous without one; throws for a bad token. */
  authenticate(authorization: string | undefined): UserInfo {
    if (!authorization) return ANONYMOUS;
    const m = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
    if (!m) throw new AuthenticationError('Unauthorized');
    const issued = this.tokens.get(m[1]!);
    if (!issued) throw new AuthenticationError('Unauthorized');
    if (issued.expiresAtMs !== undefined && this.now() >= issued.expiresAtMs) {
      this.tokens.delete(m[1]!);
      throw new AuthenticationError('Unauthorized');
    }
    return issued.user;
  }

  private store(issued: Issued): string {
    const token = randomBytes(24).toString('base64url');
    this.tokens.set(token, issued);
    this.onIssue?.();
    return token;
  }
}

function withAuthenticated(u: {
  username: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}): UserInfo {
  const groups = [...(u.groups ?? [])];
  if (!groups.includes('system:authenticated')) groups.push('system:authenticated');
  return { username: u.username, groups, extra: u.extra ?? {} };
}

/** One impersonation check: may `requester` impersonate this (resource, name)? */
export type ImpersonationCheck = (
  requester: UserInfo,
  what: {
    resource: 'users' | 'groups' | 'serviceaccounts' | 'uids' | 'userextras';
    subresource?: string;
    name: string;
    namespace?: string;
  },
) => boolean;

export class ImpersonationForbidden extends Error {
  readonly code = 'ImpersonationForbidden';
}

/**
 * The effective user of a request with `Impersonate-*` headers (lower-case keys, as node gives
 * them). Without them, the requester. Throws ImpersonationForbidden worded like kube-apiserver.
 */
export function impersonate(
  requester: UserInfo,
  headers: Record<string, string | string[] | undefined>,
  may: ImpersonationCheck,
): UserInfo {
  const list = (v: string | string[] | undefined): string[] =>
    v === undefined ? [] : Array.isArray(v) ? v : [v];
  const username = list(headers['impersonate-user'])[0];
  const groups = list(headers['impersonate-group']);
  const extraKeys = Object.keys(headers).filter((k) => k.startsWith('impersonate-extra-'));
  if (username === undefined) {
    if (groups.length || extraKeys.length)
      throw new ImpersonationForbidden('requested impersonation without a user (Impersonate-User)');
    return requester;
  }
  const refuse = (what: string): never => {
    throw new ImpersonationForbidden(`${what} is forbidden: User "${requester.username}" cannot impersonate`);
  };
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  if (sa) {
    if (!may(requester, { resource: 'serviceaccounts', name: sa[2]!, namespace: sa[1]! }))
      refuse(`serviceaccounts "${sa[2]}"`);
  } else if (!may(requester, { resource: 'users', name: username })) refuse(`users "${username}"`);
  for (const g of groups) if (!may(requester, { resource: 'groups', name: g })) refuse(`groups "${g}"`);
  const extra: Record<string, string[]> = {};
  for (const k of extraKeys) {
    // kube-apiserver's unescapeExtraKey: a key that does not unescape is kept as sent.
    const raw = k.slice('impersonate-extra-'.length);
    const key = pathUnescape(raw) ?? raw;
    const values = list(headers[k]).flatMap((v) => v.split(',').map((s) => s.trim()));
    for (const v of values)
      if (!may(requester, { resource: 'userextras', subresource: key, name: v }))
        refuse(`userextras/${key} "${v}"`);
    extra[key] = values;
  }
  const impersonatedGroups = sa
    ? ['system:serviceaccounts', `system:serviceaccounts:${sa[1]}`, ...groups]
    : groups;
  return withAuthenticated({ username, groups: impersonatedGroups, extra });
}
