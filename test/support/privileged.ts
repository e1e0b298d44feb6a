/**
 * Gate for suites that need root, network namespaces, FRR or the VM harness. Outside CI a suite whose
 * prerequisites are missing is skipped and says why; under CI (CI=true) a missing prerequisite fails
 * the suite, so a privileged suite can never silently stop running where it must.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';

export interface Prerequisites {
  root?: boolean;
  /** Commands that must be on PATH (or absolute paths that must exist). */
  commands?: string[];
  /** Files that must exist. */
  files?: string[];
}

export function missingPrerequisites(req: Prerequisites): string[] {
  const missing: string[] = [];
  if (req.root && process.getuid?.() !== 0) missing.push('root privileges');
  for (const cmd of req.commands ?? []) {
    if (cmd.startsWith('/') ? !existsSync(cmd) : !onPath(cmd)) missing.push(`command ${cmd}`);
  }
  for (const file of req.files ?? []) if (!existsSync(file)) missing.push(`file ${file}`);
  return missing;
}

function onPath(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${JSON.stringify(cmd)}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const inCI = (): boolean => process.env.CI === 'true' || process.env.CI === '1';

/**
 * `describe` that runs only when the prerequisites are met. Skips with the reason outside CI;
 * in CI it registers a failing test naming what is missing.
 */
export function describePrivileged(name: string, req: Prerequisites, body: () => void): void {
  const missing = missingPrerequisites(req);
  if (missing.length === 0) {
    describe(name, body);
    return;
  }
  const reason = `needs ${missing.join(', ')}`;
  if (inCI()) {
    describe(name, () => {
      it(`prerequisites (${reason})`, () => {
        throw new Error(`${name}: privileged suite cannot run in CI: ${reason}`);
      });
    });
  } else {
    console.warn(`skipping "${name}": ${reason}`);
    describe.skip(`${name} (skipped: ${reason})`, body);
  }
}
