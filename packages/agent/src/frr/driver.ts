/**
 * The FRR host driver: render a NodeConfig into frr.conf, check it, apply it with frr-reload.py,
 * restore the previous file on failure, and read status back.
 *
 * Apply, step by step (each failure is an FrrApplyError naming the step and quoting FRR):
 *  1. Unchanged content: nothing is written and FRR is not touched (`changed: false`).
 *  2. check: the candidate goes to a scratch file and `vtysh -C -f` checks it; FRR is not contacted
 *     and the live file is not touched, so a refused config leaves everything as it was.
 *  3. write: the current file is kept as `frr.conf.nodenet-previous`, the new one replaces
 *     `frr.conf` atomically.
 *  4. reload: `frr-reload.py --reload` applies the difference to the running daemons (no restart).
 *     frr-reload.py exits 0 even when vtysh rejected lines, so its output is scanned for FRR's error
 *     markers as well. On failure the previous file is put back and reloaded, and the error says
 *     whether that worked.
 */
import type { NodeConfigSpec } from '@nodenet/api';
import { SerialQueue } from '@nodenet/kube';
import { FrrApplyError } from './errors.js';
import { frrMessage, run, type RunResult } from './exec.js';
import { readIfExists, withScratchFile, writeAtomic } from './files.js';
import {
  reloadArgv,
  resolveInstance,
  vtyshArgv,
  type FrrInstanceOptions,
  type ResolvedInstance,
} from './instance.js';
import type { FrrNodeSettings } from './model.js';
import { renderFrrConfig } from './render.js';
import { describeDown, sessionStates, type FrrStatus, type SessionRef } from './status.js';
import { parseTemplate, type FrrTemplate } from './template.js';

export interface FrrApplyResult {
  /** The file's content changed (and FRR was reloaded). */
  changed: boolean;
  /** Wall time of check + write + reload, in ms (0 when unchanged). */
  durationMs: number;
}

export interface FrrDriverOptions extends FrrInstanceOptions {
  /** Base template text (see template.ts for the placeholder syntax). */
  template: string;
  settings: FrrNodeSettings;
}

/**
 * vtysh prints `% …` for every rejected line. These `%` lines are notices, not rejections: vtysh
 * says it when the optional vtysh.conf is missing.
 */
const BENIGN = [/^% Can't open configuration file .*vtysh\.conf/];

/** Lines of frr-reload.py / vtysh output that report a rejected command. */
export function rejectedLines(output: string): string[] {
  return output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('%') && !BENIGN.some((re) => re.test(l)));
}

function failed(r: RunResult): boolean {
  return r.code !== 0 || rejectedLines(r.stdout + '\n' + r.stderr).length > 0;
}

/** FRR's message without the benign noise and repeated lines (frr-reload applies in two passes). */
function cleanMessage(r: RunResult): string {
  const seen = new Set<string>();
  return frrMessage(r)
    .split('\n')
    .filter((l) => !BENIGN.some((re) => re.test(l.trim())))
    .filter((l) => (l.trim() === '' ? true : seen.has(l) ? false : (seen.add(l), true)))
    .join('\n')
    .replace(/\n{2,}/g, '\n')
    .trim();
}

export class FrrDriver {
  readonly instance: ResolvedInstance;
  readonly template: FrrTemplate;
  readonly settings: FrrNodeSettings;
  /** Applies and restores run one at a time. */
  private readonly queue = new SerialQueue();

  constructor(opts: FrrDriverOptions) {
    this.instance = resolveInstance(opts);
    this.template = parseTemplate(opts.template);
    this.settings = opts.settings;
  }

  /** Pure: the frr.conf text for this spec. Throws FrrRenderError / FrrTemplateError. */
  render(spec: Pick<NodeConfigSpec, 'vrf' | 'routingTable'>): string {
    return renderFrrConfig(spec, this.settings, this.template);
  }

  /** Syntax check with `vtysh -C -f`; throws FrrApplyError('check') quoting vtysh. */
  async check(text: string): Promise<void> {
    const [vtysh, base] = vtyshArgv(this.instance);
    const r = await withScratchFile(this.instance.configFile, text, (f) =>
      run(vtysh, [...base, '-C', '-f', f], this.instance.timeoutMs),
    );
    if (r.code !== 0) throw new FrrApplyError('check', cleanMessage(r));
  }

  /** Check, write and reload `text` (see the module comment). `force` reloads even when unchanged (drift repair). */
  apply(text: string, opts: { force?: boolean } = {}): Promise<FrrApplyResult> {
    return this.serialize(() => this.applyNow(text, opts.force ?? false));
  }

  /** Render and apply in one step. */
  applySpec(
    spec: Pick<NodeConfigSpec, 'vrf' | 'routingTable'>,
    opts: { force?: boolean } = {},
  ): Promise<FrrApplyResult> {
    return this.apply(this.render(spec), opts);
  }

  /** Put back the file the last apply replaced and reload it. Throws FrrApplyError('restore'). */
  restore(): Promise<void> {
    return this.serialize(async () => {
      const prev = await readIfExists(this.instance.previousFile);
      if (prev === null)
        throw new FrrApplyError('restore', `no previous configuration at ${this.instance.previousFile}`);
      await writeAtomic(this.instance.configFile, prev);
      const r = await this.reload();
      if (failed(r)) throw new FrrApplyError('restore', cleanMessage(r));
    });
  }

  /** The running configuration as FRR shows it. */
  async runningConfig(): Promise<string> {
    const [vtysh, base] = vtyshArgv(this.instance);
    const r = await run(vtysh, [...base, '-c', 'show running-config'], this.instance.timeoutMs);
    if (r.code !== 0) throw new FrrApplyError('reload', cleanMessage(r));
    return r.stdout;
  }

  /** FRR answers, and each named session is established. Never throws. */
  async status(opts: { sessions?: readonly SessionRef[] } = {}): Promise<FrrStatus> {
    const [vtysh, base] = vtyshArgv(this.instance);
    const r = await run(vtysh, [...base, '-c', 'show bgp vrf all summary json'], this.instance.timeoutMs);
    if (r.code !== 0) return { answering: false, sessions: [], healthy: false, message: cleanMessage(r) };
    let sessions;
    try {
      // bgpd not running (or no BGP instance) answers with an empty or non-JSON body.
      sessions = sessionStates(r.stdout.trim() || '{}', opts.sessions ?? []);
    } catch {
      return {
        answering: false,
        sessions: [],
        healthy: false,
        message: `unexpected answer: ${r.stdout.slice(0, 200)}`,
      };
    }
    const message = describeDown(sessions);
    return { answering: true, sessions, healthy: message === undefined, ...(message ? { message } : {}) };
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(fn);
  }

  private reload(): Promise<RunResult> {
    const [cmd, args] = reloadArgv(this.instance, this.instance.configFile);
    return run(cmd, args, this.instance.timeoutMs);
  }

  private async applyNow(text: string, force: boolean): Promise<FrrApplyResult> {
    const { configFile, previousFile } = this.instance;
    const current = await readIfExists(configFile);
    if (current === text && !force) return { changed: false, durationMs: 0 };
    const started = performance.now();
    await this.check(text);
    try {
      if (current !== null) await writeAtomic(previousFile, current);
      if (current !== text) await writeAtomic(configFile, text);
    } catch (e) {
      throw new FrrApplyError('write', (e as Error).message, undefined, { cause: e });
    }
    const r = await this.reload();
    if (!failed(r)) return { changed: current !== text, durationMs: performance.now() - started };

    const message = cleanMessage(r);
    let restored = false;
    if (current !== null) {
      try {
        await writeAtomic(configFile, current);
        restored = !failed(await this.reload());
      } catch {
        restored = false;
      }
    }
    throw new FrrApplyError('reload', message, restored);
  }
}
