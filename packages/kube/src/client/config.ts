import { existsSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * Loads the client configuration: an explicit kubeconfig file wins; otherwise the in-cluster service
 * account when running in a pod; otherwise the usual defaults ($KUBECONFIG, ~/.kube/config).
 */
export function loadKubeConfig(kubeconfigPath?: string): KubeConfig {
  const kc = new KubeConfig();
  if (kubeconfigPath) {
    if (!existsSync(kubeconfigPath)) throw new Error(`kubeconfig ${kubeconfigPath}: file not found`);
    kc.loadFromFile(kubeconfigPath);
  } else if (process.env.KUBERNETES_SERVICE_HOST && existsSync(SERVICE_ACCOUNT_TOKEN)) {
    kc.loadFromCluster();
  } else {
    kc.loadFromDefault();
  }
  if (!kc.getCurrentCluster()) {
    throw new Error(`kubeconfig ${kubeconfigPath ?? '(default)'}: no current cluster`);
  }
  return kc;
}
