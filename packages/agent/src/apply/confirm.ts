/**
 * The confirm window (docs/architecture.md, invariant 7): after an apply passed its health
 * checks, the agent keeps checking for a while before it calls the change good. A change can cut a
 * node off only later — a BGP session dies when its hold timer expires, and the routes it carried
 * are withdrawn — and a node cut off cannot even report, so it must notice and revert on its own.
 *
 * `assessTick` is the pure judgement of one round of checks; `runConfirmWindow` is the loop around
 * it, on an injected monotonic clock and sleep (never the wall clock: it can jump). The pipeline's
 * confirm step around them is confirm-applied.ts.
 */
import { parseDuration } from '@nodenet/kube';
import { describeCause } from '../errors.js';
import { judge, type CheckResult } from '../health/index.js';

export interface ConfirmSettings {
  /** How long to keep checking after the first health check passed; 0 disables the window. */
  windowMs: number;
  /** Pause between two rounds of checks. */
  intervalMs: number;
  /**
   * The API server may be unreachable this long (e.g. a control-plane restart) before the agent
   * reverts. Shorter than `windowMs` (run/options.ts checks it): the window is extended past its end
   * while an outage runs, by at most this much.
   */
  unreachableLimitMs: number;
}

/**
 * The confirm window's defaults as the flags write them (run/defaults.ts takes them from here, so
 * `--help` shows what the pipeline uses). 4 minutes: long enough for a session that a change broke
 * to die by its hold timer (FRR's traditional profile uses 180 s, RFC 4271 suggests 90 s, the
 * datacenter profile 9 s), plus a few rounds of checks after the routes are withdrawn.
 * kubernetes-nmstate reverts after 480 s.
 */
export const CONFIRM_DEFAULTS = { window: '4m', interval: '5s', unreachableLimit: '30s' } as const;

/** The same, parsed. */
export const DEFAULT_CONFIRM: ConfirmSettings = {
  windowMs: parseDuration('--confirm-window', CONFIRM_DEFAULTS.window),
  intervalMs: parseDuration('--confirm-interval', CONFIRM_DEFAULTS.interval),
  unreachableLimitMs: parseDuration('--confirm-unreachable-limit', CONFIRM_DEFAULTS.unreachableLimit),
};

/** One round of checks during the window. */
export interface ConfirmTick {
  /** Milliseconds since the window started (monotonic). */
  atMs: number;
  /** The configured health checks, without the API server check (that one is `api`). */
  results: CheckResult[];
  /** The API server on a fresh connection; undefined when no API probe is configured. */
  api?: { ok: boolean; detail: string };
}

export interface ConfirmState {
  /** When (ms since the window started) the API server was first seen unreachable, in the current outage. */
  unreachableSinceMs?: number;
}

export type ConfirmFailure = 'HealthCheckFailed' | 'ApiServerUnreachable';

export type TickVerdict =
  { kind: 'ok'; state: ConfirmState } | { kind: 'failed'; reason: ConfirmFailure; message: string };

const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;

/**
 * Judges one round: a check that passed before the apply and fails now fails the window at once;
 * an unreachable API server fails it only once the outage lasted `unreachableLimitMs`.
 */
export function assessTick(
  state: ConfirmState,
  tick: ConfirmTick,
  baseline: CheckResult[],
  settings: Pick<ConfirmSettings, 'unreachableLimitMs'>,
): TickVerdict {
  const verdict = judge(tick.results, baseline);
  if (!verdict.ok) {
    return {
      kind: 'failed',
      reason: 'HealthCheckFailed',
      message: `health check failed ${seconds(tick.atMs)} after apply: ${verdict.newFailures
        .map((r) => `${r.name} (${r.detail})`)
        .join('; ')}`,
    };
  }
  if (!tick.api || tick.api.ok) return { kind: 'ok', state: {} };
  const since = state.unreachableSinceMs ?? tick.atMs;
  if (tick.atMs - since >= settings.unreachableLimitMs) {
    return {
      kind: 'failed',
      reason: 'ApiServerUnreachable',
      message: `API server unreachable ${seconds(since)} after apply, for ${seconds(tick.atMs - since)} (${tick.api.detail})`,
    };
  }
  return { kind: 'ok', state: { unreachableSinceMs: since } };
}

export interface ConfirmLoopDeps {
  settings: ConfirmSettings;
  baseline: CheckResult[];
  /** One round of checks (must not reject). */
  check: () => Promise<Omit<ConfirmTick, 'atMs'>>;
  monotonicMs: () => number;
  /** Resolves after `ms`, or early when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Aborted when the agent shuts down: the window ends as failed (the caller restores). */
  signal: AbortSignal;
  onTick?: (tick: ConfirmTick, verdict: TickVerdict) => void;
}

export type ConfirmOutcome =
  | { kind: 'confirmed'; rounds: number }
  | { kind: 'failed'; reason: ConfirmFailure; message: string }
  | { kind: 'stopped'; message: string };

/**
 * Checks every `intervalMs` until `windowMs` passed, or until a round fails. The window never ends
 * while the last API probe failed (invariant 7: a node cut off cannot report, so "no news" must not
 * read as "good"): past `windowMs` it goes on until the API server answers (confirmed) or the outage
 * reached `unreachableLimitMs` (failed). It therefore lasts at most `windowMs + unreachableLimitMs`
 * plus one round.
 */
export async function runConfirmWindow(deps: ConfirmLoopDeps): Promise<ConfirmOutcome> {
  const { settings } = deps;
  const start = deps.monotonicMs();
  let state: ConfirmState = {};
  let rounds = 0;
  for (;;) {
    const elapsed = deps.monotonicMs() - start;
    const pause = nextPause(settings, state, elapsed);
    if (pause === undefined) return { kind: 'confirmed', rounds };
    await deps.sleep(pause, deps.signal);
    if (deps.signal.aborted) {
      return {
        kind: 'stopped',
        message: `agent stopped ${seconds(deps.monotonicMs() - start)} into the confirm window`,
      };
    }
    // A round counts from when it began: a probe that hangs until its timeout must not push the
    // start of an outage (or its end) later than the moment the path was tried.
    const roundAt = deps.monotonicMs() - start;
    const checked = await deps.check();
    const tick: ConfirmTick = { ...checked, atMs: roundAt };
    rounds++;
    const verdict = assessTick(state, tick, deps.baseline, settings);
    deps.onTick?.(tick, verdict);
    if (verdict.kind === 'failed')
      return { kind: 'failed', reason: verdict.reason, message: verdict.message };
    state = verdict.state;
  }
}

/**
 * How long to wait before the next round, `elapsed` ms into the window; undefined: the window is
 * over (confirmed). Within the window the last pause is shortened to end on it; past it (only while
 * the API server is unreachable) the pause is shortened to end when the outage reaches the limit.
 */
export function nextPause(
  settings: ConfirmSettings,
  state: ConfirmState,
  elapsed: number,
): number | undefined {
  const { windowMs, intervalMs, unreachableLimitMs } = settings;
  if (elapsed < windowMs) return Math.min(intervalMs, windowMs - elapsed);
  if (state.unreachableSinceMs === undefined) return undefined;
  const untilLimit = state.unreachableSinceMs + unreachableLimitMs - elapsed;
  return Math.max(0, Math.min(intervalMs, untilLimit));
}

/**
 * One round of the window: the configured checks, and the API server on a fresh connection — the
 * dedicated probe when given, else the configured `apiserver` check. `runHealth` must not reject.
 */
export async function confirmRound(
  runHealth: () => Promise<CheckResult[]>,
  apiServer?: () => Promise<void>,
): Promise<Omit<ConfirmTick, 'atMs'>> {
  const [all, api] = await Promise.all([runHealth(), apiServer ? probe(apiServer) : undefined]);
  const fromChecks = all.find((r) => r.name === 'apiserver');
  const results = all.filter((r) => r.name !== 'apiserver');
  if (api) return { results, api };
  return fromChecks ? { results, api: { ok: fromChecks.ok, detail: fromChecks.detail } } : { results };
}

async function probe(apiServer: () => Promise<void>): Promise<{ ok: boolean; detail: string }> {
  try {
    await apiServer();
    return { ok: true, detail: 'answered' };
  } catch (err) {
    // Only a completed exchange with the API server counts: a refused connection may come from this
    // very node (a change put the API server's address on a local device), so it proves nothing.
    return { ok: false, detail: describeCause(err) };
  }
}
