/**
 * The kubeconfig written for clients: one cluster, one context, and a bearer token when given (the
 * admin's in `--kubeconfig`, one per identity from `DevCluster.kubeconfigFor`).
 * `insecure-skip-tls-verify` is set because @kubernetes/client-node 1.x refuses a plain-HTTP server
 * otherwise ("HTTP protocol is not allowed when skipTLSVerify is not set"); kubectl accepts it unchanged.
 */
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';

export function kubeconfigYaml(url: string, name = 'nodenet-devcluster', token?: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    users: [{ name, user: token ? { token } : {} }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  });
}

export function writeKubeconfig(file: string, url: string, token?: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, kubeconfigYaml(url, undefined, token), { mode: 0o600 });
  fs.renameSync(tmp, file);
}
