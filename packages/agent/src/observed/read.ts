/** Reads the observed state from a running FRR with vtysh (argument arrays, never a shell). */
import type { ObservedState } from '@nodenet/api';
import { frrMessage, run } from '../frr/exec.js';
import { vtyshArgv, type ResolvedInstance } from '../frr/instance.js';
import { buildObserved, OBSERVED_COMMANDS, type ObservedCommand, type ShowOutputs } from './parse.js';

/** How long one show command may take; FRR answers these in milliseconds when it is well. */
const SHOW_TIMEOUT_MS = 10_000;

export function frrObservedReader(
  instance: ResolvedInstance,
  now: () => Date = () => new Date(),
): () => Promise<ObservedState> {
  const [vtysh, base] = vtyshArgv(instance);
  return async () => {
    const outputs = {} as ShowOutputs;
    let readAt = now();
    for (const command of Object.keys(OBSERVED_COMMANDS) as ObservedCommand[]) {
      const r = await run(vtysh, [...base, '-c', OBSERVED_COMMANDS[command]], SHOW_TIMEOUT_MS);
      // The uptimes are as of FRR's answer: the clock is read right after it.
      if (command === 'bgp') readAt = now();
      outputs[command] = r.code === 0 ? { ok: true, text: r.stdout } : { ok: false, error: frrMessage(r) };
    }
    return buildObserved(outputs, readAt);
  };
}
