/**
 * The log of agent reports the planner does not take as an answer to the current spec
 * (`whyReportIgnored`): each NodeConfig version's is logged once, not on every pass.
 */
import type { NodeConfig } from '@nodenet/api';
import type { Logger } from 'pino';
import { whyReportIgnored } from '../rollout/index.js';

export class IgnoredReportLog {
  /** Per NodeConfig, the resourceVersion whose ignored report was logged. */
  private readonly logged = new Map<string, string>();
  /**
   * NodeConfig objects already looked at: informer objects are replaced, never mutated, and
   * whyReportIgnored reads the object alone, so each is looked at once, not on every pass.
   */
  private readonly examined = new WeakSet<NodeConfig>();
  /** The last list: an object in the same place is one looked at (a pointer compare, cheaper than the WeakSet). */
  private last: readonly NodeConfig[] = [];

  constructor(private readonly log: Logger) {}

  /** Logs every agent report not taken as an answer to the current spec, and why (once per version). */
  note(nodeConfigs: readonly NodeConfig[]): void {
    // The same array again may have been changed in place: then the WeakSet alone.
    const last = nodeConfigs === this.last ? [] : this.last;
    for (let i = 0; i < nodeConfigs.length; i++) {
      const nc = nodeConfigs[i] as NodeConfig;
      if (last[i] === nc || this.examined.has(nc)) continue;
      this.examined.add(nc);
      const why = whyReportIgnored(nc);
      const rv = nc.metadata.resourceVersion ?? '';
      if (!why || this.logged.get(nc.metadata.name) === rv) continue;
      this.logged.set(nc.metadata.name, rv);
      this.log.info(
        { node: nc.metadata.name, configStatus: nc.status?.configStatus, cause: why },
        'agent report ignored',
      );
    }
    this.last = nodeConfigs;
    // Bounded: names of deleted NodeConfigs go when the map outgrows the fleet.
    if (this.logged.size > nodeConfigs.length * 2) this.logged.clear();
  }
}
