/**
 * The pipeline's port for telling the world what it does: a report per step and the sink that
 * takes it. The pipeline depends on this much only; status/ delivers the reports (NodeConfig status,
 * the liveness Lease), so status/ imports the pipeline and never the other way round.
 */
import type { ConfigStatus, FailureCause } from '@nodenet/api';

/** What the pipeline tells the world about one attempt. */
export interface StatusReport {
  configStatus: ConfigStatus;
  /** The revision this report is about (the one being applied, applied, or rejected). */
  revision: string;
  /** The revision on the host after this step (the restored one for `invalid`), if any. */
  lastAppliedRevision?: string;
  /** CamelCase reason, e.g. `Provisioned`, `HealthCheckFailed`, `AgentRestartedDuringApply`. */
  reason: string;
  /** Any length: the status carries at most MAX_MESSAGE_BYTES of it (bounded.ts). */
  message: string;
  /** Only with `invalid`: what the configurator makes of it (docs/agent-status.md). */
  failureCause?: FailureCause;
  /** `metadata.generation` of the NodeConfig the report answers, when known. */
  observedGeneration?: number;
  /**
   * Set while the apply passed its checks and the agent keeps checking through the confirm window
   * (`configStatus` stays `provisioning`, so the node keeps its rollout slot). Shown as the
   * `Confirming` condition, whose `lastTransitionTime` is when the window started.
   */
  confirming?: boolean;
}

/** Where reports go; the pipeline depends on this much only. */
export interface StatusSink {
  report(report: StatusReport): void;
  /** The newest report handed in (written or not), so the pipeline can tell what it already said. */
  lastReported(): StatusReport | undefined;
  /** True while the newest report waits to be written (so it is not yet visible in the API). */
  readonly busy: boolean;
  /**
   * Says "still working" while an apply or its confirm window runs, so the configurator's
   * `--config-timeout` measures silence rather than total time: renews the agent's Lease (or, with
   * no Lease, writes the newest report again). A no-op while a write is still pending or retrying:
   * a heartbeat never piles up writes against a slow API server.
   */
  heartbeat(): void;
}
