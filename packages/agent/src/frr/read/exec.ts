/** Running FRR's tools: argument arrays only, never a shell (invariant 6); failures are data, not throws. */
import { execFile } from 'node:child_process';
import { redactPasswords } from '../text/index.js';

export interface RunResult {
  /** Exit code, or null when the process could not start or was killed (see `error`). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Spawn error or timeout, when there was one. */
  error?: string;
}

export function run(cmd: string, args: readonly string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8', killSignal: 'SIGKILL' },
      (err, stdout, stderr) => {
        if (!err) return resolve({ code: 0, stdout, stderr });
        const e = err as NodeJS.ErrnoException & { code?: number | string; killed?: boolean };
        const code = typeof e.code === 'number' ? e.code : null;
        const error =
          code !== null ? undefined : e.killed ? `timed out after ${timeoutMs} ms` : `${cmd}: ${e.message}`;
        resolve({ code, stdout, stderr, ...(error ? { error } : {}) });
      },
    );
  });
}

/** FRR's own words from a failed run: its output, trimmed, or the spawn error. */
export function frrMessage(r: RunResult): string {
  const text = [r.stdout, r.stderr]
    .map((s) => s.trim())
    .filter(Boolean)
    .join('\n');
  return [text, r.error].filter(Boolean).join('\n') || `exit code ${r.code}`;
}

/**
 * vtysh prints `% …` for every rejected line. These `%` lines are notices, not rejections: vtysh
 * says the first when the optional vtysh.conf is missing; staticd the second when frr-reload.py
 * sends a VRF's removed static routes (`no ip route …`, which it sends with the lines it adds) in
 * its second pass, after the first one removed them. The reload's result is checked against the
 * file afterwards either way.
 */
const BENIGN = [
  /^% Can't open configuration file .*vtysh\.conf/,
  /^% Refusing to remove a non-existent route$/,
];

/** Lines of frr-reload.py / vtysh output that report a rejected command. */
export function rejectedLines(output: string): string[] {
  return output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('%') && !BENIGN.some((re) => re.test(l)));
}

export function failed(r: RunResult): boolean {
  return r.code !== 0 || rejectedLines(r.stdout + '\n' + r.stderr).length > 0;
}

/** FRR's message without the benign noise and repeated lines (frr-reload applies in two passes). */
export function cleanMessage(r: RunResult): string {
  const seen = new Set<string>();
  return redactPasswords(frrMessage(r))
    .split('\n')
    .filter((l) => !BENIGN.some((re) => re.test(l.trim())))
    .filter((l) => (l.trim() === '' ? true : seen.has(l) ? false : (seen.add(l), true)))
    .join('\n')
    .replace(/\n{2,}/g, '\n')
    .trim();
}
