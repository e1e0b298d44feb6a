/**
 * Writing node-1's NodeConfig as the configurator would, and waiting on the status the real agent
 * writes (agent-bgp.test.ts, agent-confirm-edges.test.ts).
 */
import {
  API_VERSION,
  ASSIGNED_AT_ANNOTATION,
  type NodeConfig,
  type NodeConfigSpec,
  type NodeConfigStatus,
} from '@nodenet/api';
import { isConflict, type Clients } from '@nodenet/kube';

let assigned = 0;

/** Writes the NodeConfig with a new assignment time; returns its generation (the agent's conditions name it). */
export async function assign(
  clients: Clients,
  spec: NodeConfigSpec,
  name = 'node-1',
  extraAnnotations: Record<string, string> = {},
): Promise<number> {
  const annotations = {
    [ASSIGNED_AT_ANNOTATION]: new Date(Date.UTC(2025, 0, 1, 0, 0, assigned++)).toISOString(),
    ...extraAnnotations,
  };
  // The agent writes status at any time: a PUT from an older read conflicts; read again.
  for (let attempt = 1; ; attempt++) {
    const existing = await clients.nodeConfig.get(name).catch(() => undefined);
    const obj: NodeConfig = {
      apiVersion: API_VERSION,
      kind: 'NodeConfig',
      metadata: { ...(existing?.metadata ?? { name }), annotations },
      spec,
    };
    try {
      const stored = existing ? await clients.nodeConfig.update(obj) : await clients.nodeConfig.create(obj);
      return stored.metadata.generation ?? 0;
    } catch (err) {
      if (!isConflict(err) || attempt >= 5) throw err;
    }
  }
}

export const condition = (s: NodeConfigStatus, type: string) => s.conditions?.find((c) => c.type === type);

/** The condition is True and answers generation `gen`. */
export const answers = (s: NodeConfigStatus, type: string, gen: number): boolean =>
  condition(s, type)?.status === 'True' && condition(s, type)?.observedGeneration === gen;

/** Retries `fn` until it stops throwing; rethrows its last error after `timeoutMs`. */
export async function eventually<T>(fn: () => T | Promise<T>, timeoutMs = 60_000, stepMs = 200): Promise<T> {
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
  return eventually(
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
