/**
 * The kubeconfig written for clients: one cluster, one context, and a bearer token when given (the
 * admin's in `--kubeconfig`, one per identity from `DevCluster.kubeconfigFor`).
 *
 * Over HTTPS (under RBAC) the cluster carries the CA that signed the server's certificate
 * (`certificate-authority-data`), so clients verify the server. Over plain HTTP (AlwaysAllow,
 * loopback only) there is nothing to verify, and `insecure-skip-tls-verify` is set because
 * @kubernetes/client-node 1.x refuses a plain-HTTP server otherwise ("HTTP protocol is not allowed
 * when skipTLSVerify is not set"); kubectl accepts it unchanged.
 */
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';

export function kubeconfigYaml(
  url: string,
  name = 'nodenet-devcluster',
  token?: string,
  ca?: string,
): string {
  const cluster = ca
    ? { server: url, 'certificate-authority-data': Buffer.from(ca).toString('base64') }
    : { server: url, 'insecure-skip-tls-verify': true };
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: token ? { token } : {} }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}

/**
 * Writes the kubeconfig (mode 0600) into a fresh private directory beside `file` (`mkdtemp`, 0700,
 * an unpredictable name) and renames it into place: no other local user can pre-create, swap or
 * read the file that carries the token while it is written.
 */
export function writeKubeconfig(file: string, url: string, token?: string, ca?: string): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmpDir = fs.mkdtempSync(path.join(dir, '.kubeconfig-'));
  try {
    const tmp = path.join(tmpDir, 'kubeconfig');
    fs.writeFileSync(tmp, kubeconfigYaml(url, undefined, token, ca), { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, file);
  } finally {
    fs.rmSync(tmpDir, { recursive: true, force: true });
  }
}
