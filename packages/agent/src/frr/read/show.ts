/**
 * Several show commands in one vtysh run. vtysh prints the answers back to back; with `-E` it echoes
 * each command after its prompt (`<hostname># show vrf vni json`), and that echo is where one answer
 * ends and the next begins. One spawn instead of one per command: vtysh's start-up (connecting to
 * every daemon) is most of what a show command costs.
 */
import { run, type RunResult } from './exec.js';
import { vtyshArgv, type ResolvedInstance } from './instance.js';

export type ShowAnswer = { ok: true; text: string } | { ok: false; error: string };

/**
 * Split the output of `vtysh -E -c c1 -c c2 …` into the answer to each command. An echo is a line
 * ending in `# <command>`, looked for in order, so a line of an answer cannot be taken for the
 * echo of a command already passed. Commands whose echo never came did not run (vtysh stops at the
 * first failing one): undefined.
 */
export function splitEchoed(output: string, commands: readonly string[]): (string | undefined)[] {
  const answers: (string | undefined)[] = commands.map(() => undefined);
  let at = -1;
  let current: string[] = [];
  const flush = (): void => {
    if (at >= 0) answers[at] = current.join('\n');
    current = [];
  };
  for (const line of output.split('\n')) {
    const next = commands[at + 1];
    if (next !== undefined && line.endsWith(`# ${next}`)) {
      flush();
      at++;
      continue;
    }
    if (at >= 0) current.push(line);
  }
  flush();
  return answers;
}

/** Run `commands` in one vtysh; each answer, or why there is none. Never throws. */
export async function showMany(
  instance: ResolvedInstance,
  commands: readonly string[],
  timeoutMs = instance.timeoutMs,
): Promise<{ answers: ShowAnswer[]; result: RunResult }> {
  const [vtysh, base] = vtyshArgv(instance);
  const r = await run(vtysh, [...base, '-E', ...commands.flatMap((c) => ['-c', c])], timeoutMs);
  const texts = splitEchoed(r.stdout, commands);
  const problem = [r.stderr.trim(), r.error].filter(Boolean).join('\n') || `exit code ${r.code}`;
  // On failure the last answer that came is the failing command's message; the rest never ran.
  const lastSeen = texts.reduce((last, t, i) => (t !== undefined ? i : last), -1);
  const answers = texts.map((text, i): ShowAnswer => {
    if (r.code === 0 && text !== undefined) return { ok: true, text };
    if (text !== undefined && i < lastSeen) return { ok: true, text };
    if (text !== undefined) return { ok: false, error: [text.trim(), problem].filter(Boolean).join('\n') };
    return { ok: false, error: `not run: ${problem}` };
  });
  return { answers, result: r };
}
