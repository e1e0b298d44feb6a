/**
 * A fast-path change (fast-path.ts): the commands, then the read-back of what they touched
 * (read-back.ts). They go straight to the daemons' vty sockets (vty-apply.ts: no vtysh process, and
 * zebra and bgpd take each command at the same time); when that cannot be used (a command or a
 * daemon it does not know, a socket it cannot reach) in one vtysh run, as here. More than one
 * command goes between `XFRR_start_configuration` and `XFRR_end_configuration`, the markers vtysh itself sends around a file it reads (`vtysh -f`, which
 * frr-reload.py uses): FRR 8.4's daemons then commit the commands as one northbound transaction per
 * context instead of one per command, and a transaction costs each daemon a pass over its whole
 * configuration (~65 ms zebra, ~140 ms bgpd at 50 VRFs; a route-map edit of two lines was three).
 * A command that is not part of the northbound (`exit`, the BGP lines) commits what came before it,
 * so the order stays as written. Each daemon has committed when it answers the end marker, so the
 * reads that follow see the result. The markers open bgpd's configuration window, as a reload does:
 * a peer it creates until a second after the end marker (or until the route-map delay of 5 s runs
 * out) starts only then, so a workload connecting to a listen range just then is refused once.
 */
import {
  failed,
  run,
  vtyshArgv,
  type ResolvedInstance,
  readBackFor,
  type ReadBack,
  showMany,
  splitEchoed,
} from '../read/index.js';
import { type FastPathPlan, parseConfig, type ParsedConfig } from '../text/index.js';
import { applyOverSockets, type SocketApply } from './vty-apply.js';

const BATCH_START = 'XFRR_start_configuration';
const BATCH_END = 'XFRR_end_configuration';

/**
 * Apply `plan` and read it back; true when every touched object runs as `expected` says. False
 * when vtysh refused a command (vtysh stops at a refused command, so none of the reads ran), a read
 * did not come, or FRR shows something else: the caller then reloads with frr-reload.py.
 */
export async function runFastPath(
  instance: ResolvedInstance,
  plan: FastPathPlan,
  expected: ParsedConfig,
): Promise<boolean> {
  // A difference the parse does not see (a comment): nothing to send, nothing to read.
  if (plan.commands.length === 0 && plan.touched.size === 0) return true;
  const readBack = readBackFor(expected, plan.touched, parseConfig);
  // One command is one commit either way: the markers only for more, so a one-line change opens no
  // configuration window in bgpd (see the module comment).
  const batch = plan.commands.length > 1;
  const direct = await applyOverSockets(instance, { commands: plan.commands, batch }, readBack.commands);
  if (direct)
    return direct.applied && inForce(readBack, await withUnasked(instance, direct, readBack.commands));
  const commands = batch ? [BATCH_START, ...plan.commands, BATCH_END] : plan.commands;
  const configure = commands.length > 0 ? ['configure terminal', ...commands, 'end'] : [];
  const [vtysh, base] = vtyshArgv(instance);
  const args = [...configure, ...readBack.commands].flatMap((l) => ['-c', l]);
  const r = await run(vtysh, [...base, '-E', ...args], instance.timeoutMs);
  if (failed(r)) return false;
  return inForce(readBack, splitEchoed(r.stdout, readBack.commands));
}

/** The socket answers, with the shows they left to vtysh (a config dump) asked in one vtysh run. */
async function withUnasked(
  instance: ResolvedInstance,
  direct: SocketApply,
  commands: readonly string[],
): Promise<(string | undefined)[]> {
  if (direct.unasked.length === 0) return direct.answers;
  const { answers } = await showMany(
    instance,
    direct.unasked.map((i) => commands[i]!),
  );
  const out = [...direct.answers];
  direct.unasked.forEach((i, k) => (out[i] = answers[k]?.ok ? answers[k].text : undefined));
  return out;
}

/** True when every read-back command was answered and the answers show the file's objects. */
function inForce(readBack: ReadBack, answers: readonly (string | undefined)[]): boolean {
  if (answers.length < readBack.commands.length || answers.some((a) => a === undefined)) return false;
  try {
    return readBack.mismatches(answers as string[]).length === 0;
  } catch {
    // An answer that is not the JSON asked for: not shown to be in force.
    return false;
  }
}
