/**
 * Readiness means able to act: the informers have listed everything, and the namespace of the
 * leader-election Lease exists (without it no instance can ever lead, and the configurator would
 * idle while reporting ready). The check itself is pure; `watchLeaseNamespace` feeds it.
 */
import { isNotFound, type Clients } from '@nodenet/kube';
import type { Logger } from 'pino';

export type NamespaceState = 'present' | 'missing' | 'unknown';

export interface Readiness {
  ok: boolean;
  detail: string;
}

export function readiness(synced: boolean, namespace: string, state: NamespaceState): Readiness {
  if (state === 'missing')
    return {
      ok: false,
      detail: `Lease namespace "${namespace}" does not exist: create it or set --leader-election-namespace`,
    };
  if (!synced) return { ok: false, detail: 'informers not synced yet' };
  if (state === 'unknown') return { ok: false, detail: `Lease namespace "${namespace}" not checked yet` };
  return { ok: true, detail: 'informers synced, Lease namespace present' };
}

/**
 * Looks the Lease namespace up now and every `intervalMs`; logs an error naming it whenever it
 * goes missing. Returns the current state and a stop function.
 */
export function watchLeaseNamespace(
  clients: Clients,
  namespace: string,
  log: Logger,
  intervalMs = 10_000,
): { state: () => NamespaceState; stop: () => void } {
  let state: NamespaceState = 'unknown';
  const check = async (): Promise<void> => {
    try {
      await clients.client.request('GET', `/api/v1/namespaces/${encodeURIComponent(namespace)}`);
      if (state !== 'present') log.info({ namespace }, 'Lease namespace present');
      state = 'present';
    } catch (err) {
      if (!isNotFound(err)) return; // unreachable API server: keep the last answer
      if (state !== 'missing')
        log.error(
          { namespace },
          `Lease namespace "${namespace}" does not exist: no instance can lead; create it or set --leader-election-namespace`,
        );
      state = 'missing';
    }
  };
  void check();
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  return { state: () => state, stop: () => clearInterval(timer) };
}
