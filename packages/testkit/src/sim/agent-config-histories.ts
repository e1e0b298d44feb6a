/**
 * The FRR base template and the health checks are an input like any other (issue #36): in the
 * simulator, whose inputs are abstract values (a, b, c), the AgentConfiguration is the input `c`.
 * A template that cuts nodes off stops at the limit and is rolled back to the previous template.
 */
import type { History } from './history.js';

export const AGENT_CONFIG_HISTORIES: History[] = [
  {
    name: 'a template change that cuts nodes off is one more input: bounded, rolled back',
    nodes: 6,
    policy: { limit: 1, maxFailures: 0, notReadyTimeoutMs: 120_000, minSuccessTimeMs: 60_000 },
    inputs: { a: 1, c: 1 },
    bad: [{ input: 'c', value: 2, effect: 'cutOff' }],
    actions: [
      { at: 1_000, action: { kind: 'setInput', input: 'a', value: 2 } },
      { at: 1_500, action: { kind: 'setInput', input: 'c', value: 2 } },
    ],
  },
];
