/**
 * An admission warning devcluster adds, as a validating webhook would on a real cluster (kube-
 * apiserver returns webhook warnings as `Warning: 299 - "…"` headers; kubectl prints each as
 * `Warning: …`): a custom resource whose `spec.nodeSelector` (a LabelSelector) matches none of the
 * Nodes stored, most often a typo in a label. The write itself is not refused: nodes may be labelled
 * later. The text is `@nodenet/api`'s (`noNodeMatches`), the one the configurator's `Selected=False`
 * condition carries.
 */
import { noNodeMatches } from '@nodenet/api';
import type { Cluster } from './cluster.js';
import { storageKeyOf, type ResourceType } from '../resources/resources.js';
import type { KObject } from '../objects/types.js';

const NODES = storageKeyOf({ group: '', plural: 'nodes' });

export function nodeSelectorWarnings(cluster: Cluster, t: ResourceType, obj: KObject): string[] {
  if (t.crd === undefined) return [];
  const labels = cluster.store
    .list(NODES)
    .map((s) => (s.obj.metadata.labels ?? {}) as Readonly<Record<string, string>>);
  const none = noNodeMatches(obj.spec, labels);
  return none === undefined ? [] : [`${t.kind} ${obj.metadata.name ?? ''}: ${none}`];
}
