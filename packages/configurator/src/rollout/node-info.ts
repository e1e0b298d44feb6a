/** What the planner reads of a Node (nodes/node-info.ts builds it from the Node and its Lease). */
export interface NodeInfo {
  name: string;
  uid?: string;
  labels: Record<string, string>;
  ready: boolean;
  /** The Node is being deleted. */
  deleting?: boolean;
  /** The Node carries an agent start-up taint (`node.nodenet.io/...`): its agent is not ready yet. */
  agentStarting?: boolean;
  /**
   * The agent's liveness Lease as last seen (its resourceVersion; absent: no Lease). Compared for
   * change only: a new value is a renewal, timed by observe() on this process's clock.
   */
  renewal?: string;
  /**
   * The API server refuses the writes of this node's NodeConfig (nodes/refused-assignments.ts): the
   * API's error. Such a node is unavailable: no move, no slot, never counted.
   */
  assignRefused?: string;
}
