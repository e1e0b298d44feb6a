/**
 * The FRR base template and the health checks are an input like any other (issue #36): in the
 * simulator, whose inputs are abstract values, the AgentConfiguration is the input `template`.
 * A template that cuts nodes off, changed after an unrelated good input, stops at the limit, is
 * rolled back (to the previous template) and leaves the good change in force.
 */
import type { History } from './history.js';

export const AGENT_CONFIG_HISTORIES: History[] = [
  {
    name: 'a template change that cuts nodes off is one more input: bounded, rolled back, the other change kept',
    nodes: 6,
    policy: { limit: 1, maxFailures: 0, notReadyTimeoutMs: 120_000, minSuccessTimeMs: 60_000 },
    inputs: { a: 1, template: 1 },
    bad: [{ input: 'template', value: 2, effect: 'cutOff' }],
    actions: [
      { at: 1_000, action: { kind: 'setInput', input: 'a', value: 2 } },
      // After the change of `a` completed everywhere (6 nodes, limit 1, 60 s soak).
      { at: 600_000, action: { kind: 'setInput', input: 'template', value: 2 } },
    ],
  },
];
