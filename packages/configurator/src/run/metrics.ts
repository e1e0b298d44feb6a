/** Prometheus metrics of the configurator, on a registry of its own (several instances per process in tests). */
import type { NetworkConfigRevision } from '@nodenet/api';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Plan } from '../rollout/index.js';

export class Metrics {
  readonly registry = new Registry();
  readonly revisions = new Gauge({
    name: 'nodenet_configurator_revisions',
    help: 'NetworkConfigRevisions by state (desired, superseded, invalid).',
    labelNames: ['state'],
    registers: [this.registry],
  });
  readonly nodes = new Gauge({
    name: 'nodenet_configurator_nodes',
    help: 'Nodes by rollout state relative to the desired revision.',
    labelNames: ['state'],
    registers: [this.registry],
  });
  readonly rolloutDuration = new Histogram({
    name: 'nodenet_configurator_rollout_duration_seconds',
    help: 'Time from a revision starting to roll out until every target node reported it.',
    buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200],
    registers: [this.registry],
  });
  readonly invalidations = new Counter({
    name: 'nodenet_configurator_invalidations_total',
    help: 'Revisions marked invalid because too many nodes failed.',
    registers: [this.registry],
  });
  readonly apiErrors = new Counter({
    name: 'nodenet_configurator_api_errors_total',
    help: 'Failed Kubernetes API requests, by verb and HTTP status (0 = no answer).',
    labelNames: ['verb', 'code'],
    registers: [this.registry],
  });
  readonly apiRequests = new Counter({
    name: 'nodenet_configurator_api_requests_total',
    help: 'Kubernetes API requests, by verb.',
    labelNames: ['verb'],
    registers: [this.registry],
  });
  readonly passes = new Counter({
    name: 'nodenet_configurator_passes_total',
    help: 'Reconcile passes run.',
    registers: [this.registry],
  });
  readonly passDuration = new Histogram({
    name: 'nodenet_configurator_pass_duration_seconds',
    help: 'Duration of one reconcile pass, writes included.',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: 'nodenet_configurator_is_leader',
    help: '1 while this instance holds the leader lease and acts.',
    registers: [this.registry],
  });

  constructor(defaults = false) {
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }

  /** The node and revision gauges after a pass: nodes by state, revisions desired / invalid / superseded. */
  observePlan(p: Pick<Plan, 'nodeStates' | 'desired'>, revisions: readonly NetworkConfigRevision[]): void {
    for (const [state, n] of Object.entries(p.nodeStates)) this.nodes.set({ state }, n);
    let invalid = 0;
    let superseded = 0;
    for (const r of revisions) {
      if (r.status?.isInvalid) invalid++;
      else if (r.metadata.name !== p.desired?.name) superseded++;
    }
    this.revisions.set({ state: 'desired' }, p.desired ? 1 : 0);
    this.revisions.set({ state: 'invalid' }, invalid);
    this.revisions.set({ state: 'superseded' }, superseded);
  }
}
