/**
 * The frr-reload.py path of a change, step by step (driver.ts decides when it runs): check the
 * candidate with `vtysh -C -f`, prepare the running config (VRFs it lacks, route-map lines that would
 * crash frr-reload.py), reload, delete the BGP VRF instances frr-reload.py could not, and wait until
 * FRR's state holds what the file says. Stateless: each function takes the instance it talks to.
 */
import { FrrApplyError } from '../errors.js';
import {
  cleanMessage,
  failed,
  readRuntimeState,
  reloadArgv,
  run,
  runtimeMismatches,
  vtyshArgv,
  type ResolvedInstance,
  type RunResult,
  type RuntimeState,
} from '../read/index.js';
import { configFacts, parseConfig } from '../text/index.js';
import { withScratchFile } from './files.js';
import { staleBgpInstances, vrfPreparation } from './prepare.js';
import { routeMapRemovals } from './reload-guard.js';

type ReloadStep = 'prepare' | 'reload' | 'verify';

/** Syntax check with `vtysh -C -f`; throws FrrApplyError('check') quoting vtysh. */
export async function checkConfig(instance: ResolvedInstance, text: string): Promise<void> {
  const [vtysh, base] = vtyshArgv(instance);
  const r = await withScratchFile(instance.configFile, text, (f) =>
    run(vtysh, [...base, '-C', '-f', f], instance.timeoutMs),
  );
  if (r.code !== 0) throw new FrrApplyError('check', cleanMessage(r));
}

/** One vtysh `show` command's output; throws FrrApplyError(step). */
export async function showCommand(
  instance: ResolvedInstance,
  command: string,
  step: ReloadStep,
): Promise<string> {
  const [vtysh, base] = vtyshArgv(instance);
  const r = await run(vtysh, [...base, '-c', command], instance.timeoutMs);
  if (r.code !== 0) throw new FrrApplyError(step, `${command}: ${cleanMessage(r)}`);
  return r.stdout;
}

/** `frr-reload.py --reload` of the managed file. */
export function reloadFile(instance: ResolvedInstance): Promise<RunResult> {
  const [cmd, args] = reloadArgv(instance, instance.configFile);
  return run(cmd, args, instance.timeoutMs);
}

/**
 * Create the VRFs the running config lacks (see prepare.ts) and remove the route-map lines that
 * would crash frr-reload.py (reload-guard.ts), from the top level.
 */
export async function prepareReload(instance: ResolvedInstance, text: string): Promise<void> {
  const runningText = await showCommand(instance, 'show running-config', 'prepare');
  await configure(
    instance,
    [
      ...vrfPreparation(configFacts(text), configFacts(runningText)),
      ...routeMapRemovals(parseConfig(runningText), parseConfig(text)),
    ],
    'prepare',
  );
}

/**
 * After the reload: delete the BGP VRF instances frr-reload.py could not (see prepare.ts). Returns
 * FRR's state when nothing had to be deleted, for the first round of the check.
 */
export async function finishReload(
  instance: ResolvedInstance,
  text: string,
): Promise<RuntimeState | undefined> {
  const state = await readRuntimeState(instance, 'reload');
  const stale = staleBgpInstances(configFacts(text), state.running);
  if (stale.length === 0) return state;
  await configure(instance, stale, 'reload');
  return undefined;
}

/** Run `lines` in one vtysh, from the top level of the configuration. */
async function configure(
  instance: ResolvedInstance,
  lines: string[],
  step: 'prepare' | 'reload',
): Promise<void> {
  if (lines.length === 0) return;
  const [vtysh, base] = vtyshArgv(instance);
  const r = await run(
    vtysh,
    [...base, ...['configure terminal', ...lines].flatMap((l) => ['-c', l])],
    instance.timeoutMs,
  );
  if (failed(r)) throw new FrrApplyError(step, cleanMessage(r));
}

/**
 * Wait (bounded by `waitMs`, monotonic clock) until FRR's state holds what `text` says; throws
 * FrrApplyError('verify'). `first`: a state already read, the first round's.
 */
export async function verifyRuntime(
  instance: ResolvedInstance,
  text: string,
  wait: { waitMs: number; first?: RuntimeState },
): Promise<void> {
  const expected = configFacts(text);
  const now = (): number => performance.now();
  const deadline = now() + wait.waitMs;
  let state = wait.first ?? (await readRuntimeState(instance));
  for (;;) {
    const missing = runtimeMismatches(expected, state);
    if (missing.length === 0) return;
    if (now() >= deadline) {
      throw new FrrApplyError('verify', `FRR does not run what the file says: ${missing.join('; ')}`);
    }
    await new Promise((r) => setTimeout(r, 250));
    state = await readRuntimeState(instance);
  }
}

/** prepare + reload + finish for the restore paths: a failure is a result, not a throw. */
export async function prepareAndReload(instance: ResolvedInstance, text: string): Promise<RunResult> {
  const asResult = (e: unknown): RunResult => ({
    code: null,
    stdout: '',
    stderr: '',
    error: (e as Error).message,
  });
  try {
    await prepareReload(instance, text);
  } catch (e) {
    return asResult(e);
  }
  const r = await reloadFile(instance);
  if (failed(r)) return r;
  try {
    await finishReload(instance, text);
  } catch (e) {
    return asResult(e);
  }
  return r;
}
