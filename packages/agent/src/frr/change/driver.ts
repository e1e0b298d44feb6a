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
 *  4. prepare: VRFs the running config lacks are created first (why: prepare.ts).
 *  5. reload: `frr-reload.py --reload` applies the difference to the running daemons (no restart).
 *     frr-reload.py exits 0 even when vtysh rejected lines, so its output is scanned for FRR's error
 *     markers as well.
 *  6. verify: FRR's runtime state must hold what the file says (verify.ts): VRFs with their L3 VNIs,
 *     BGP instances, route-maps and prefix-lists; a VNI may take a moment, so this waits up to
 *     `verifyWaitMs` on a monotonic clock.
 *  On failure in 4–6 the previous file is put back and reloaded, and the error says whether that
 *  worked.
 *
 * This class decides the path (fast path or frr-reload.py) and keeps what it remembers between
 * changes (the text FRR runs, the last render, the last parse); the reload path's steps are reload.ts.
 *
 * Drift (`sync`): the file is compared with FRR's running config (`frr-reload.py --test`), not with
 * itself, so a hand-made change through vtysh is found and reloaded away.
 */
import type { NodeConfigSpec } from '@nodenet/api';
import { SerialQueue } from '@nodenet/kube';
import { FrrApplyError } from '../errors.js';
import {
  cleanMessage,
  failed,
  run,
  DriftCheck,
  isEmptyDrift,
  parseReloadTest,
  type ConfigDrift,
  daemonConfigs,
  reloadArgv,
  resolveInstance,
  type FrrInstanceOptions,
  type ResolvedInstance,
  readStatus,
  type FrrStatus,
  type SessionRef,
} from '../read/index.js';
import { parseConfig, type ParsedConfig, fastPathPlanOf } from '../text/index.js';
import { editTopLevel } from './config-edit.js';
import { runFastPath } from './fast-apply.js';
import { FRR_CONFIG_MODE, readIfExists, writeAtomic } from './files.js';
import {
  type FrrNodeSettings,
  renderFrrConfig,
  parseTemplate,
  SpecTemplates,
  type FrrTemplate,
} from '../render/index.js';
import {
  checkConfig,
  finishReload,
  prepareAndReload,
  prepareReload,
  reloadFile,
  showCommand,
  verifyRuntime,
} from './reload.js';

export interface FrrApplyResult {
  /** The file's content changed (and FRR was reloaded). */
  changed: boolean;
  /** Wall time of check + write + reload + verify, in ms (0 when unchanged). */
  durationMs: number;
  /** Of `durationMs`, the post-reload check of FRR's state. */
  verifyMs?: number;
  /** How FRR was changed: vtysh commands of the difference (fast-path.ts) or frr-reload.py. */
  path?: 'fast' | 'reload';
}

export interface FrrSyncResult extends FrrApplyResult {
  /** What FRR ran differently from the file before the repair (empty when it matched). */
  drift: ConfigDrift;
}

/** What the driver renders from: the NodeConfig's sections and the template it carries. */
export type RenderSpec = Pick<NodeConfigSpec, 'vrf' | 'routingTable' | 'bgpPeering' | 'agent'>;

export interface FrrDriverOptions extends FrrInstanceOptions {
  /** The bootstrap template (`--frr-template`), for a NodeConfig that carries none (template.ts). */
  template?: string;
  settings: FrrNodeSettings;
  /** How long the post-reload check waits for FRR to show what the file says (default 15 s). */
  verifyWaitMs?: number;
}

export class FrrDriver {
  readonly instance: ResolvedInstance;
  /** The bootstrap template, parsed (checked at start-up). */
  readonly template: FrrTemplate | undefined;
  readonly settings: FrrNodeSettings;
  private readonly verifyWaitMs: number;
  /** Applies and restores run one at a time. */
  private readonly queue = new SerialQueue();
  /**
   * The file text FRR was last seen running (after a verified apply, or a drift check that found
   * nothing): the fast path starts only from there, so the first apply of a process, and any apply
   * after a failure, goes through frr-reload.py.
   */
  private runningText: string | undefined;
  /** The in-process drift check of `sync`, remembered between resyncs (drift.ts). */
  private readonly driftCheck = new DriftCheck();
  private lastRender: { key: string; text: string } | undefined;
  /** The template of each spec: its own (AgentConfiguration's), else the bootstrap one. */
  private readonly templates: SpecTemplates;
  /** The parse of the last text a fast path started from or went to (one slot, keyed by the text). */
  private parsed: { text: string; config: ParsedConfig } | undefined;

  constructor(opts: FrrDriverOptions) {
    this.instance = resolveInstance(opts);
    this.template = opts.template === undefined ? undefined : parseTemplate(opts.template);
    this.templates = new SpecTemplates(this.template);
    this.settings = opts.settings;
    this.verifyWaitMs = opts.verifyWaitMs ?? 15_000;
  }

  /** Pure: the frr.conf text for this spec, in its template (SpecTemplates). Throws FrrRenderError / FrrTemplateError. */
  render(spec: RenderSpec): string {
    // Every resync renders the applied spec again: the last text is kept, keyed by the spec's JSON
    // (a tenth of a render's cost), so a mutated spec object never gets a stale text.
    const key = JSON.stringify([spec.vrf, spec.routingTable, spec.bgpPeering, spec.agent?.frrTemplate]);
    if (this.lastRender?.key !== key) {
      this.lastRender = { key, text: renderFrrConfig(spec, this.settings, this.templates.of(spec)) };
    }
    return this.lastRender.text;
  }

  /** The frame of an empty config: the bootstrap template, else the last template a NodeConfig carried. */
  renderEmpty(): string {
    return this.render(this.templates.emptySpec());
  }

  /** Syntax check with `vtysh -C -f`; throws FrrApplyError('check') quoting vtysh. */
  check(text: string): Promise<void> {
    return checkConfig(this.instance, text);
  }

  /** Check, write and reload `text` (see the module comment). `force` reloads even when unchanged (drift repair). */
  apply(text: string, opts: { force?: boolean } = {}): Promise<FrrApplyResult> {
    return this.serialize(() => this.applyNow(text, opts.force ?? false));
  }

  /** Render and apply in one step. */
  applySpec(spec: RenderSpec, opts: { force?: boolean } = {}): Promise<FrrApplyResult> {
    return this.apply(this.render(spec), opts);
  }

  /** Put back the file the last apply replaced and reload it. Throws FrrApplyError('restore'). */
  restore(): Promise<void> {
    return this.serialize(async () => {
      const prev = await readIfExists(this.instance.previousFile);
      if (prev === null)
        throw new FrrApplyError('restore', `no previous configuration at ${this.instance.previousFile}`);
      this.runningText = undefined;
      await writeAtomic(this.instance.configFile, prev, FRR_CONFIG_MODE);
      const r = await prepareAndReload(this.instance, prev);
      if (failed(r)) throw new FrrApplyError('restore', cleanMessage(r));
    });
  }

  /** The running configuration as FRR shows it. */
  async runningConfig(): Promise<string> {
    return showCommand(this.instance, 'show running-config', 'verify');
  }

  /**
   * Drift repair: make FRR run `text`. A changed file is applied (through frr-reload.py). An
   * unchanged one is compared with FRR's running config in-process (drift.ts: the daemons' own
   * texts over their sockets first, vtysh's when they changed); only a difference found there is
   * checked with `frr-reload.py --test`, and reloaded when that agrees.
   */
  sync(text: string): Promise<FrrSyncResult> {
    return this.serialize(async () => {
      const current = await readIfExists(this.instance.configFile);
      if (current !== text) {
        const r = await this.applyNow(text, true);
        return { ...r, changed: true, drift: { toAdd: [], toDelete: [] } };
      }
      const drift = await this.driftCheck.check(text, {
        running: () => this.runningConfig(),
        daemons: () => daemonConfigs(this.instance),
        confirm: () => this.drift(),
      });
      if (isEmptyDrift(drift)) {
        this.runningText = text;
        return { changed: false, durationMs: 0, drift };
      }
      const r = await this.applyNow(text, true);
      return { ...r, changed: true, drift };
    });
  }

  /** Render and sync in one step. */
  syncSpec(spec: RenderSpec): Promise<FrrSyncResult> {
    return this.sync(this.render(spec));
  }

  /** What a reload of the managed file would change in the running FRR (`frr-reload.py --test`). */
  async drift(): Promise<ConfigDrift> {
    const [cmd, args] = reloadArgv(this.instance, this.instance.configFile, 'test');
    const r = await run(cmd, args, this.instance.timeoutMs);
    if (failed(r)) throw new FrrApplyError('verify', cleanMessage(r));
    return parseReloadTest(r.stdout);
  }

  /** FRR answers, and each named session is established. Never throws. */
  status(opts: { sessions?: readonly SessionRef[] } = {}): Promise<FrrStatus> {
    return readStatus(this.instance, opts.sessions ?? []);
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(fn);
  }

  /**
   * The fast path's commands from `current` to `text`: the new text's parse from the current one's
   * when only top-level lines changed (config-edit.ts), else parsed whole; the slot keeps it.
   */
  private planChange(current: string, text: string): ReturnType<typeof fastPathPlanOf> {
    const from = this.parse(current);
    const edit = editTopLevel(current, from, text);
    if (!edit) return fastPathPlanOf(from, this.parse(text));
    this.parsed = { text, config: edit.parsed };
    return fastPathPlanOf(from, edit.parsed, edit.diff);
  }

  /** `parseConfig(text)`, from the slot when it holds `text` (an apply parses only the new text). */
  private parse(text: string): ParsedConfig {
    if (this.parsed?.text !== text) this.parsed = { text, config: parseConfig(text) };
    return this.parsed.config;
  }

  private async applyNow(text: string, force: boolean): Promise<FrrApplyResult> {
    const current = await readIfExists(this.instance.configFile);
    if (current === text && !force) return { changed: false, durationMs: 0 };
    const started = performance.now();
    const plan =
      !force && current !== null && current === this.runningText ? this.planChange(current, text) : undefined;
    this.runningText = undefined;
    if (plan && current !== null) {
      await this.writeFiles(current, text);
      const verifyStarted = performance.now();
      if (await runFastPath(this.instance, plan, this.parse(text))) {
        this.runningText = text;
        const end = performance.now();
        return { changed: true, durationMs: end - started, verifyMs: end - verifyStarted, path: 'fast' };
      }
      // The commands may have half-applied: the check below must not leave them in force.
      return this.reloadAfterFastPath(current, text, started);
    }
    await this.check(text);
    await this.writeFiles(current, text);
    return this.reloadOrRestore(current, text, started);
  }

  /** Keep the replaced file as `previousFile`, write the new one (both atomic). */
  private async writeFiles(current: string | null, text: string): Promise<void> {
    try {
      if (current !== null) await writeAtomic(this.instance.previousFile, current, FRR_CONFIG_MODE);
      if (current !== text) await writeAtomic(this.instance.configFile, text, FRR_CONFIG_MODE);
    } catch (e) {
      throw new FrrApplyError('write', (e as Error).message, undefined, { cause: e });
    }
  }

  /** The fallback of a fast path that failed: check, then reload the new file, or go back to `current`. */
  private async reloadAfterFastPath(current: string, text: string, started: number): Promise<FrrApplyResult> {
    try {
      await this.check(text);
    } catch (e) {
      const restored = await this.putBack(current);
      const err = e as FrrApplyError;
      throw new FrrApplyError(err.step, err.frrMessage, restored, { cause: e });
    }
    return this.reloadOrRestore(current, text, started);
  }

  /** Write `current` back and reload it; whether that worked. */
  private async putBack(current: string): Promise<boolean> {
    try {
      await writeAtomic(this.instance.configFile, current, FRR_CONFIG_MODE);
      return !failed(await prepareAndReload(this.instance, current));
    } catch {
      return false;
    }
  }

  /** prepare, reload, finish and verify `text` (already written); on failure restore `current`. */
  private async reloadOrRestore(
    current: string | null,
    text: string,
    started: number,
  ): Promise<FrrApplyResult> {
    let failure: FrrApplyError;
    try {
      await prepareReload(this.instance, text);
      const r = await reloadFile(this.instance);
      if (failed(r)) throw new FrrApplyError('reload', cleanMessage(r));
      // The check's first read is finish()'s: it counts as the check.
      const verifyStarted = performance.now();
      const state = await finishReload(this.instance, text);
      await verifyRuntime(this.instance, text, { waitMs: this.verifyWaitMs, first: state });
      const end = performance.now();
      this.runningText = text;
      return {
        changed: current !== text,
        durationMs: end - started,
        verifyMs: end - verifyStarted,
        path: 'reload',
      };
    } catch (e) {
      failure = e instanceof FrrApplyError ? e : new FrrApplyError('reload', (e as Error).message);
    }
    const restored = current !== null && (await this.putBack(current));
    throw new FrrApplyError(failure.step, failure.frrMessage, current === null ? false : restored, {
      cause: failure,
    });
  }
}
