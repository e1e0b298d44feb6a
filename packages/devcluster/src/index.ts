/**
 * devcluster: a Kubernetes-API-compatible server on loopback for tests, benchmarks and local runs.
 * `startDevCluster()` starts one and writes a kubeconfig that kubectl and @kubernetes/client-node use unchanged.
 */
import fs from 'node:fs';
import os from 'node:os';
import { isIP } from 'node:net';
import path from 'node:path';
import { Cluster } from './cluster/cluster.js';
import { CrdLoadError, readCrds } from './crds.js';
import { ApiError } from './objects/errors.js';
import { writeKubeconfig } from './kubeconfig.js';
import { FILE_MODE, Persistence } from './storage/persist.js';
import { ApiServer, type ServerOptions } from './http/server.js';
import { newCertificateAuthority, servingCertificates, type CertificateAuthority } from './http/tls.js';
import { Access, type AuthorizationMode } from './auth/access.js';
import type { SavedToken } from './auth/authenticate.js';

export interface DevClusterOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /**
   * Address to listen on; default 127.0.0.1. `0.0.0.0` (or another address of this host) lets
   * agents in network namespaces reach it without a relay; the kubeconfig then names 127.0.0.1 for
   * a wildcard address, else this address.
   */
  address?: string;
  /** Directory of CRD YAML files registered at start (like `kubectl apply -f DIR`). */
  crdsDir?: string;
  /** Directory where objects are persisted across restarts; in memory only when absent. */
  dataDir?: string;
  /** Where to write the kubeconfig; a temporary file (removed on stop) when absent. */
  kubeconfigPath?: string;
  /** Number of change events kept for watch resumption; older resourceVersions get 410 Gone. */
  historyLimit?: number;
  /** Interval of watch bookmarks (ms) for watches that allow them; default 10 s. */
  bookmarkIntervalMs?: number;
  /**
   * `AlwaysAllow` (default): requests without a token act as the admin, nothing is refused.
   * `RBAC`: a valid bearer token is required, RBAC authorizes every request and the bound
   * ValidatingAdmissionPolicies admit every write, as kube-apiserver `--authorization-mode RBAC`.
   */
  authorizationMode?: AuthorizationMode;
  /**
   * Largest object stored, in bytes of JSON; a bigger create or update is refused as kube-apiserver
   * passes on etcd's refusal (500 "etcdserver: request is too large"). Default 1.5 MiB (etcd's
   * `--max-request-bytes`); 0: no limit.
   */
  maxObjectBytes?: number;
}

/** An identity for `kubeconfigFor`: a user (a token is issued) or a token already issued. */
export type Identity =
  { username: string; groups?: string[]; extra?: Record<string, string[]> } | { token: string };

export interface DevCluster {
  url: string;
  /** The CA (PEM) that signed the serving certificate (HTTPS, under RBAC); the kubeconfigs carry it. */
  ca?: string;
  kubeconfigPath: string;
  port: number;
  /** In-process access to the server state (for benchmarks and diagnostics). */
  cluster: Cluster;
  /** Open watch streams. */
  watchCount(): number;
  /**
   * Ends every open watch stream, as an API server restart or a watch timeout does; clients must
   * resume (or re-list after 410). Returns how many were ended. For resilience tests.
   */
  dropWatches(): number;
  /**
   * Writes a kubeconfig for another identity (a user and groups, or a token such as one from
   * `kubectl create token`) to `file` (default: a new file beside the admin kubeconfig); returns
   * its path. `kubeconfigPath` is the admin's (group system:masters).
   */
  kubeconfigFor(who: Identity, file?: string): string;
  /** Authentication and authorization state (tokens, the mode). */
  access: Access;
  stop(): Promise<void>;
}

export async function startDevCluster(options: DevClusterOptions = {}): Promise<DevCluster> {
  const address = options.address ?? '127.0.0.1';
  const mode = options.authorizationMode ?? 'AlwaysAllow';
  // In AlwaysAllow mode whoever reaches the port is the admin: only this host may.
  if (mode !== 'RBAC' && !isLoopback(address)) throw new InsecureAddressError(address);
  const { cluster, persistence } = await openCluster(options);
  const access = new Access(
    cluster,
    mode,
    options.dataDir ? savedTokens(path.join(options.dataDir, 'tokens.json')) : undefined,
  );
  const { serverOptions, ca } = serving(options, access, address);
  const server = new ApiServer(cluster, access, serverOptions);
  const port = await server.listen(options.port ?? 0, address);
  const url = `${serverOptions.tls ? 'https' : 'http'}://${urlHost(address)}:${port}`;
  let tempDir: string | undefined;
  let kubeconfigPath = options.kubeconfigPath;
  if (!kubeconfigPath) {
    tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodenet-devcluster-'));
    kubeconfigPath = path.join(tempDir, 'kubeconfig');
  }
  writeKubeconfig(kubeconfigPath, url, access.adminToken, ca);
  const kubeconfigDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodenet-devcluster-ids-'));
  let identities = 0;

  let stopped: Promise<void> | undefined;
  return {
    url,
    ...(ca ? { ca } : {}),
    kubeconfigPath,
    port,
    cluster,
    watchCount: () => server.watchCount,
    dropWatches: () => server.dropWatches(),
    access,
    kubeconfigFor: (who, file) => {
      const token = 'token' in who ? who.token : access.tokens.issueStatic(who);
      const target = file ?? path.join(kubeconfigDir, `kubeconfig-${++identities}`);
      writeKubeconfig(target, url, token, ca);
      return target;
    },
    stop: () =>
      (stopped ??= (async () => {
        cluster.stop();
        await server.close();
        persistence?.close();
        if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
        fs.rmSync(kubeconfigDir, { recursive: true, force: true });
      })()),
  };
}

/** The cluster's state: loaded from the data directory, the default namespaces, the CRDs of the directory. */
async function openCluster(
  options: DevClusterOptions,
): Promise<{ cluster: Cluster; persistence: Persistence | undefined }> {
  const cluster = new Cluster(options.historyLimit, options.maxObjectBytes);
  let persistence: Persistence | undefined;
  if (options.dataDir) {
    persistence = new Persistence(options.dataDir, cluster.store);
    persistence.load();
    cluster.registerStoredCrds();
  }
  cluster.bootstrap();
  if (options.crdsDir) loadCrds(cluster, options.crdsDir);
  await cluster.settle();
  return { cluster, persistence };
}

/** Registers (or updates) every CRD of the directory; a refused one names its file. */
function loadCrds(cluster: Cluster, crdsDir: string): void {
  const crdType = cluster.typeFor('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
  if (!crdType) throw new Error('CustomResourceDefinition type missing');
  for (const { file, crd } of readCrds(crdsDir)) {
    const name = crd.metadata?.name ?? '';
    try {
      const existing = cluster.store.get('apiextensions.k8s.io/customresourcedefinitions', name);
      if (existing) {
        cluster.update(
          crdType,
          { namespace: undefined, name },
          {
            ...crd,
            metadata: {
              ...existing.obj.metadata,
              ...crd.metadata,
              resourceVersion: existing.obj.metadata.resourceVersion,
            },
          },
        );
      } else cluster.create(crdType, undefined, crd);
    } catch (e) {
      throw new CrdLoadError(file, e instanceof ApiError ? e.message : String(e));
    }
  }
}

/** The server's options; under RBAC a serving certificate and its CA (kubectl sends credentials only to https). */
function serving(
  options: DevClusterOptions,
  access: Access,
  address: string,
): { serverOptions: ServerOptions; ca: string | undefined } {
  const serverOptions: ServerOptions = {};
  if (options.bookmarkIntervalMs !== undefined) serverOptions.bookmarkIntervalMs = options.bookmarkIntervalMs;
  let ca: string | undefined;
  if (access.mode === 'RBAC') {
    const authority = options.dataDir
      ? savedAuthority(path.join(options.dataDir, 'ca.json'))
      : newCertificateAuthority();
    const certs = servingCertificates(certificateHosts(address), authority);
    serverOptions.tls = certs.serving;
    ca = certs.ca;
  }
  return { serverOptions, ca };
}

export { Cluster } from './cluster/cluster.js';
export { ApiError } from './objects/errors.js';
export { DEFAULT_MAX_OBJECT_BYTES, MAX_REQUEST_BODY_BYTES } from './objects/object-size.js';
export { CrdLoadError } from './crds.js';
export { kubeconfigYaml } from './kubeconfig.js';
export { Access, AUTHORIZATION_MODES, type AuthorizationMode } from './auth/access.js';
export type { UserInfo } from './cluster/admission.js';
export type { ResourceType } from './resources/resources.js';

/** A non-loopback listen address asked for without authorization. */
export class InsecureAddressError extends Error {
  override name = 'InsecureAddressError';
  constructor(readonly address: string) {
    super(
      `--address ${address} is not a loopback address: in AlwaysAllow mode every request acts as the admin, so serving beyond this host needs --authorization-mode RBAC`,
    );
  }
}

export function isLoopback(address: string): boolean {
  if (address === 'localhost' || address === '::1') return true;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** Names the serving certificate holds: the listen address, or every address of this host for a wildcard. */
function certificateHosts(address: string): string[] {
  if (address !== '0.0.0.0' && address !== '::' && address !== '') return [address];
  return Object.values(os.networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((i) => i.address.split('%')[0]!);
}

/** The host a client connects to for a listen address (a wildcard means this host's loopback). */
export function urlHost(address: string): string {
  if (address === '0.0.0.0' || address === '') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return address.includes(':') ? `[${address}]` : address;
}

// Internals the package's own tests exercise directly (pure logic, unit-tested).
export { selfSubjectAccessReview } from './auth/access-review.js';
export {
  type AdmissionAttributes,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyBinding,
  admit,
  denialMessage,
} from './auth/admission-policy.js';
export {
  ANONYMOUS,
  AuthenticationError,
  type ImpersonationCheck,
  ImpersonationForbidden,
  NODE_NAME_EXTRA,
  TokenAuthenticator,
  impersonate,
} from './auth/authenticate.js';
export {
  type Binding,
  type RbacObjects,
  type RequestAttributes,
  type Role,
  authorize,
  forbiddenMessage,
  forbiddenStatus,
} from './auth/rbac.js';
export { CelError, compileCel, evaluateCelBool } from './schema/cel.js';
export { evaluateJsonPath, parseJsonPath } from './query/jsonpath.js';
export { applyMergePatch, applyStrategicMergePatch } from './objects/patch.js';
export { parseListOptions, queryBool, queryInt } from './query/query.js';
export { type Schema, applyDefaults, prune } from './schema/schema.js';
export { checkSchemaSupported, validate } from './schema/schema-validate.js';
export { matchLabels, parseLabelSelector, selectorPredicate } from './query/selectors.js';
export { GoneError, Store } from './storage/store.js';
export { humanDuration } from './resources/table.js';
export { type KObject } from './objects/types.js';
export { requestInfo } from './auth/request-info.js';
export { servingCertificates } from './http/tls.js';

/** The CA kept beside the data (mode 0600): a restart keeps every kubeconfig written valid. */
function savedAuthority(file: string): CertificateAuthority {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as CertificateAuthority;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const authority = newCertificateAuthority();
  writePrivate(file, JSON.stringify(authority));
  return authority;
}

/** Writes a file only this user reads, through a fresh temp file and a rename. */
function writePrivate(file: string, text: string): void {
  const tmp = `${file}.tmp`;
  fs.rmSync(tmp, { force: true });
  fs.writeFileSync(tmp, text, { mode: FILE_MODE, flag: 'wx' });
  fs.renameSync(tmp, file);
}

/** Tokens kept beside the data (mode 0600): a restart keeps every issued token valid. */
function savedTokens(file: string): { tokens: SavedToken[]; save: (tokens: SavedToken[]) => void } {
  let tokens: SavedToken[] = [];
  try {
    tokens = JSON.parse(fs.readFileSync(file, 'utf8')) as SavedToken[];
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return {
    tokens,
    // In the data directory (0700, see persist.ts).
    save: (t) => writePrivate(file, JSON.stringify(t)),
  };
}
