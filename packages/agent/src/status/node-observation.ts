/**
 * Wires what the agent observes about its node into the API: `NodeConfig.status.observed` (FRR's
 * run-time state, observed/) and the `NodenetReady` Node condition (node-condition.ts). Both follow
 * the pipeline from the outside — its status reports and the loop's outcomes — so the pipeline
 * itself does not know about them.
 */
import type { NodeConfig, ObservedState } from '@nodenet/api';
import type { Clients } from '@nodenet/kube';
import { boundObserved } from '../bounded.js';
import { describeCause } from '../errors.js';
import { decideNodenetReady, nextNodeState, NodeConditionWriter, type NodeState } from './node-condition.js';
import { observedPatch, ObservedReporter } from '../observed/index.js';
import { isQuietResync, type Logger, type ReconcileOutcome, type StartOutcome } from '../apply/index.js';
import type { StatusSink } from './status.js';

export interface NodeObservationOptions {
  clients: Clients;
  nodeName: string;
  /** One read of the node's FRR (observed/read.ts's `frrObservedReader` on a real node). */
  read: () => Promise<ObservedState>;
  /** FRR read period and least time between two observed-state writes; 0: FRR is not read. */
  intervalMs: number;
  logger: Logger;
}

export class NodeObservation {
  private state: NodeState = {};
  private readonly condition: NodeConditionWriter;
  private readonly observed: ObservedReporter;

  constructor(private readonly opts: NodeObservationOptions) {
    const { clients, nodeName, logger } = opts;
    this.condition = new NodeConditionWriter({
      clients,
      nodeName,
      onError: (err) =>
        logger.warn({ err: describeCause(err) }, 'could not write the NodenetReady Node condition'),
      onWritten: (d) => logger.info({ condition: d }, 'NodenetReady Node condition written'),
    });
    this.observed = new ObservedReporter({
      read: opts.read,
      write: async (observed) => {
        // Bounded lists and strings: a node with thousands of sessions still gets a status.
        await clients.nodeConfig.patchStatus(nodeName, observedPatch(boundObserved(observed)), undefined, {
          fieldManager: 'nodenet-agent',
        });
      },
      intervalMs: opts.intervalMs,
      monotonicMs: () => performance.now(),
      onRead: (observed) =>
        this.fold({
          kind: 'frr',
          // Every command must answer: with bgpd down, zebra still answers `show version`.
          answering: observed.error === undefined,
          ...(observed.error ? { detail: observed.error } : {}),
        }),
      onWritten: (observed) =>
        logger.debug({ bgp: observed.bgpSummary, vnis: observed.vniSummary }, 'observed state written'),
      onWriteError: (err) =>
        logger.debug({ err: describeCause(err) }, 'observed state not written; retrying'),
    });
  }

  start(): void {
    // Without observation the Node condition still follows the pipeline, without FRR's answer.
    if (this.opts.intervalMs > 0) this.observed.start();
  }

  async stop(): Promise<void> {
    await this.observed.stop();
  }

  /** The pipeline's status sink, seen through: reports also drive the Node condition. */
  tap(sink: StatusSink): StatusSink {
    return {
      report: (report) => {
        sink.report(report);
        this.fold({ kind: 'report', report });
      },
      lastReported: () => sink.lastReported(),
      get busy() {
        return sink.busy;
      },
      heartbeat: () => sink.heartbeat(),
    };
  }

  /** A reconcile (or start-up recovery) finished; `nc` is the NodeConfig it answered. */
  outcome(outcome: ReconcileOutcome | StartOutcome, nc?: NodeConfig): void {
    if (nc) this.observed.seenInApi(nc.status?.observed);
    if (outcome.kind === 'clean' || outcome.kind === 'completed') return;
    this.fold({ kind: 'outcome', outcome });
    // A resync that changed nothing changed nothing FRR shows either: the observer's own pace
    // reads it (one vtysh run saved per idle resync).
    if (outcome.kind === 'recovered' || !isQuietResync(outcome)) this.observed.poke();
  }

  private fold(event: Parameters<typeof nextNodeState>[1]): void {
    this.state = nextNodeState(this.state, event);
    void this.condition.update(decideNodenetReady(this.state));
  }
}
