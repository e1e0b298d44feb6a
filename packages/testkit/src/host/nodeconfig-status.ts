/** Waiting on the status the real agent writes (agent-bgp.test.ts, agent-confirm-edges.test.ts). */
import type { NodeConfigStatus } from '@nodenet/api';
import type { Clients } from '@nodenet/kube';

export const condition = (s: NodeConfigStatus, type: string) => s.conditions?.find((c) => c.type === type);

/** The condition is True and answers generation `gen`. */
export const answers = (s: NodeConfigStatus, type: string, gen: number): boolean =>
  condition(s, type)?.status === 'True' && condition(s, type)?.observedGeneration === gen;

/** Retries `fn` until it stops throwing; rethrows its last error after `timeoutMs`. */
export async function eventuallyPasses<T>(
  fn: () => T | Promise<T>,
  timeoutMs = 60_000,
  stepMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, stepMs));
    }
  }
}

/** Where and how long waitForStatus looks. */
export interface StatusWait {
  /** Every status seen is pushed here, so a test can tell what came before. */
  seen?: NodeConfigStatus[];
  timeoutMs?: number;
  /** The NodeConfig (default `node-1`). */
  name?: string;
}

/** Polls the status until `pred` holds; throws with the last status after the timeout. */
export function waitForStatus(
  clients: Clients,
  what: string,
  pred: (s: NodeConfigStatus) => boolean,
  { seen = [], timeoutMs = 60_000, name = 'node-1' }: StatusWait = {},
): Promise<NodeConfigStatus> {
  return eventuallyPasses(
    async () => {
      const s = (await clients.nodeConfig.get(name)).status;
      if (s) seen.push(s);
      if (s && pred(s)) return s;
      throw new Error(`waiting for ${what}; last status: ${JSON.stringify(s)}`);
    },
    timeoutMs,
    200,
  );
}
