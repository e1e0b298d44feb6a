/**
 * Issue 40: agent liveness through the Lease. The agents write no status between their reports
 * (agents.ts: a slow agent renews its Lease every TIMING.heartbeat); the configurator must still
 * tell a silent agent from a slow one within --config-timeout. The config timeout here (20 s) is
 * shorter than a slow apply (TIMING.slowApply, 40 s), so only the renewals keep a slow agent's node.
 */
import type { History } from './history.js';
import type { Scheduled, WorldAction } from './types.js';

const at = (s: number, action: WorldAction): Scheduled => ({ at: s * 1000, action });

/** --config-timeout of these histories (ms). */
export const LIVENESS_CONFIG_TIMEOUT_MS = 20_000;

export const LIVENESS_HISTORIES = {
  /** Every agent is slow (40 s per apply, renewing every 10 s): the change completes, nobody failed. */
  slow: {
    name: 'slow agents that renew their Lease are not failed by a config timeout shorter than their apply',
    nodes: 3,
    policy: { limit: 3, maxFailures: 0, configTimeoutMs: LIVENESS_CONFIG_TIMEOUT_MS },
    inputs: { a: 1 },
    bad: [],
    actions: [
      ...['n0', 'n1', 'n2'].map((node) => at(0, { kind: 'agent', node, mode: 'slow' })),
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
    ],
  },
  /**
   * n0's agent is slow and goes silent (dies) 15 s into its apply, after renewing once at ~11 s:
   * its node fails by the config timeout, 20 s after that renewal, and the change is rolled back.
   */
  silent: {
    name: 'an agent that goes silent in its apply is failed within --config-timeout of its last renewal',
    nodes: 1,
    policy: { limit: 1, maxFailures: 0, configTimeoutMs: LIVENESS_CONFIG_TIMEOUT_MS },
    inputs: { a: 1 },
    bad: [],
    actions: [
      at(0, { kind: 'agent', node: 'n0', mode: 'slow' }),
      at(1, { kind: 'setInput', input: 'a', value: 2 }),
      at(16, { kind: 'agent', node: 'n0', mode: 'dead' }),
    ],
    converge: false,
    mayEndInvalid: [2],
  },
} satisfies Record<string, History>;
