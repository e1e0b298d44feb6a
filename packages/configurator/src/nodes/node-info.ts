/** What the planner needs of a Node, read once per Node object. */
import { canonicalJson, matchesSelector } from '@nodenet/api';
import { isNodeReady, type Node } from '@nodenet/kube';
import type { Policy } from '../policy/policy.js';
import type { NodeInfo } from '../rollout/index.js';

/** Prefix of the taints the agent removes once the host first holds a healthy config. */
export const AGENT_TAINT_PREFIX = 'node.nodenet.io/';

/** NodeInfo per Node object (informer objects are replaced on change, never mutated). */
const nodeInfos = new WeakMap<Node, NodeInfo>();
export function nodeInfoOf(n: Node): NodeInfo {
  let info = nodeInfos.get(n);
  if (!info) nodeInfos.set(n, (info = nodeInfo(n)));
  return info;
}

/**
 * nodeInfoOf over the informer's list of every pass: where the Node object is the one in the same
 * place of the last list (informer lists keep their order while objects are replaced), its NodeInfo
 * is the last one's; a pointer compare per node rather than a WeakMap lookup per node per pass.
 */
export class NodeInfoList {
  private nodes: readonly Node[] = [];
  private infos: readonly NodeInfo[] = [];

  of(nodes: readonly Node[], renewalOf?: (node: string) => string | undefined): NodeInfo[] {
    const out: NodeInfo[] = [];
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i] as Node;
      const last = n === this.nodes[i] ? (this.infos[i] as NodeInfo) : nodeInfoOf(n);
      // The agent's Lease renewal (agent-leases.ts): a new NodeInfo only when it moved.
      const renewal = renewalOf?.(n.metadata.name);
      if (last.renewal === renewal) out.push(last);
      else {
        const { renewal: _old, ...info } = last;
        out.push(renewal === undefined ? info : { ...info, renewal });
      }
    }
    this.nodes = nodes;
    this.infos = out;
    return out;
  }
}

/** The kubelet's lastTransitionTime is another machine's clock: readiness changes are timed by observe(). */
function nodeInfo(n: Node): NodeInfo {
  return {
    name: n.metadata.name,
    ...(n.metadata.uid ? { uid: n.metadata.uid } : {}),
    labels: n.metadata.labels ?? {},
    ready: isNodeReady(n),
    ...(n.metadata.deletionTimestamp ? { deleting: true } : {}),
    // The agent's start-up taints (node.nodenet.io/...) stay until its first healthy config.
    ...((n.spec?.taints ?? []).some((t) => t.key.startsWith(AGENT_TAINT_PREFIX))
      ? { agentStarting: true }
      : {}),
  };
}

/** Whether two versions of a Node have the same labels (a heartbeat changes only the status). */
export const sameLabels = (a: Node, b: Node): boolean =>
  canonicalJson(a.metadata.labels ?? {}) === canonicalJson(b.metadata.labels ?? {});

/** What of a Node the build reads: its labels, and its addresses (the peering guards, issue #37). */
export const sameBuildFacts = (a: Node, b: Node): boolean =>
  sameLabels(a, b) && canonicalJson(a.status?.addresses ?? []) === canonicalJson(b.status?.addresses ?? []);

/** Labels of the nodes the configurator manages (the policy's node selector): what inputs select from. */
export const managedNodeLabels = (
  nodes: readonly Node[],
  policy: Pick<Policy, 'nodeSelector'>,
): Record<string, string>[] =>
  nodes.map((n) => n.metadata.labels ?? {}).filter((labels) => matchesSelector(policy.nodeSelector, labels));
