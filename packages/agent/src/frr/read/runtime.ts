/**
 * What the post-reload check compares (verify.ts), read in one vtysh run (show.ts): the running
 * config, the L3 VNIs, zebra's VNI types and the BGP instances.
 */
import { FrrApplyError } from '../errors.js';
import { configFacts } from '../text/index.js';
import type { ResolvedInstance } from './instance.js';
import { showMany } from './show.js';
import { l3VniByVrf, parseBgpVrfs, parseEvpnVniTypes, type RuntimeState } from './verify.js';

const RUNTIME_COMMANDS = [
  'show running-config',
  'show vrf vni json',
  'show evpn vni json',
  'show bgp vrfs json',
] as const;

/** Throws FrrApplyError(`step`) naming the command FRR did not answer, or the answer not understood. */
export async function readRuntimeState(
  instance: ResolvedInstance,
  step: 'reload' | 'verify' = 'verify',
): Promise<RuntimeState> {
  const { answers } = await showMany(instance, RUNTIME_COMMANDS);
  const texts = answers.map((a, i) => {
    if (!a.ok) throw new FrrApplyError(step, `${RUNTIME_COMMANDS[i]}: ${a.error}`);
    return a.text;
  });
  const [running, vrfVni, evpnVni, bgpVrfs] = texts as [string, string, string, string];
  try {
    return {
      running: configFacts(running),
      l3Vnis: l3VniByVrf(vrfVni),
      vniTypes: parseEvpnVniTypes(evpnVni),
      bgpInstances: parseBgpVrfs(bgpVrfs),
    };
  } catch (e) {
    throw new FrrApplyError(step, `unexpected answer from FRR: ${(e as Error).message}`);
  }
}
