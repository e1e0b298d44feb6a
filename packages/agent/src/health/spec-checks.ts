/**
 * The health checks of the NodeConfig on the host (issue #36): a NodeConfig whose AgentConfiguration
 * carries health checks is judged by them; one without, by the bootstrap `--health-config`. The
 * pipeline selects the spec it is applying before its baseline, and the spec it restored after a
 * failure, so a change of the checks is confirmed (and rolled back) like any other change.
 */
import { canonicalJson, type NodeConfigSpec } from '@nodenet/api';
import { describeCause } from '../errors.js';
import { HealthChecker, type CheckResult, type HealthProbes } from './checker.js';
import { parseHealthConfig, type HealthConfig } from './config.js';

export class SpecHealthChecks {
  private key = '';
  private checker: HealthChecker;
  /** Why the selected spec's checks could not be read: every run then fails with it. */
  private invalid: string | undefined;

  constructor(
    private readonly bootstrap: HealthConfig,
    private readonly probes: HealthProbes,
  ) {
    this.checker = new HealthChecker(bootstrap, probes);
  }

  /** The checks now in force. */
  get config(): HealthConfig {
    return this.checker.config;
  }

  /** From now on, the checks of `spec` (the bootstrap ones when it carries none). Never throws. */
  select(spec: NodeConfigSpec | undefined): void {
    const checks = spec?.agent?.healthChecks;
    const key = checks === undefined ? '' : canonicalJson(checks);
    if (key === this.key) return;
    this.key = key;
    this.invalid = undefined;
    try {
      const config =
        checks === undefined ? this.bootstrap : parseHealthConfig(checks, 'spec.agent.healthChecks');
      this.checker = new HealthChecker(config, this.probes);
    } catch (err) {
      // The configurator validated them; an agent that reads them otherwise fails the apply, saying why.
      this.invalid = describeCause(err);
    }
  }

  /** Runs the checks in force; never rejects. */
  run(): Promise<CheckResult[]> {
    if (this.invalid !== undefined)
      return Promise.resolve([{ name: 'health-config', ok: false, detail: this.invalid }]);
    return this.checker.run();
  }
}
