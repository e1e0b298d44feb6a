/**
 * apps/v1 Deployment and DaemonSet, stored and listed only (no controller runs them, as Pods never
 * run here), so that `kubectl apply -k deploy/` installs nodenet's base unchanged; tests create the
 * Pods a DaemonSet would (for pod-bound ServiceAccount tokens) themselves.
 */
import { builtin, type ResourceType } from './resources.js';

export const WORKLOAD_TYPES: ResourceType[] = [
  builtin({
    group: 'apps',
    version: 'v1',
    plural: 'deployments',
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    statusSubresource: true,
    generation: true,
  }),
  builtin({
    group: 'apps',
    version: 'v1',
    plural: 'daemonsets',
    kind: 'DaemonSet',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    statusSubresource: true,
    generation: true,
  }),
];
