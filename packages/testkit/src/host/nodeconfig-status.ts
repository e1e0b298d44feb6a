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

/** Polls the status; every status seen is kept, so a test can tell what came before. */
export function waitForStatus(
  clients: Clients,
  what: string,
  pred: (s: NodeConfigStatus) => boolean,
  seen: NodeConfigStatus[] = [],
  timeoutMs = 60_000,
  name = 'node-1',
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
