/**
 * Records core/v1 Events about objects, the way `kubectl describe` and `kubectl get events` show
 * them. Repeats of one report are aggregated into one Event with a growing count, and each object is
 * rate-limited (EventCorrelator). Event writes are best effort: a failure is reported to `onError`
 * and never fails the caller. Both binaries use this one recorder.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { isNotFound } from '../client/errors.js';
import { EventCorrelator, type EventCorrelatorOptions, type EventKey } from './event-correlator.js';
import type { Event, KubeObject, ResourceClient } from '../client/resources.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  /** `source.component` / `reportingComponent`, e.g. `nodenet-configurator`. */
  component: string;
  /** Instance identity (pod or host name). */
  instance?: string;
  /** Namespace for events about cluster-scoped objects (Kubernetes uses `default`). */
  namespace?: string;
  onError?: (err: unknown, event: Event) => void;
  /** Called for a report the rate limit dropped (count it, log it). */
  onDropped?: (event: Event) => void;
  /** Aggregation and rate-limit settings (client-go's defaults). */
  correlator?: EventCorrelatorOptions;
  /** Monotonic clock in ms (tests inject one); wall-clock time is only written into the Event. */
  monotonicNow?: () => number;
}

/** Kubernetes caps event messages at 1 KiB in practice; longer ones are cut with an ellipsis. */
const MAX_MESSAGE = 1024;

export class EventRecorder {
  private readonly correlator: EventCorrelator;
  /** One write at a time per report, so a repeat never patches an Event still being created. */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly events: ResourceClient<Event>,
    private readonly opts: EventRecorderOptions,
  ) {
    this.correlator = new EventCorrelator(opts.correlator);
  }

  /** Builds the Event object (exported for tests and dry runs). */
  build(obj: KubeObject, type: EventType, reason: string, message: string): Event {
    const now = new Date();
    const ns = obj.metadata.namespace ?? this.opts.namespace ?? 'default';
    const ts = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const text = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message;
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: `${obj.metadata.name}.${now.getTime().toString(16)}${randomBytes(3).toString('hex')}`,
        namespace: ns,
      },
      involvedObject: {
        ...(obj.apiVersion ? { apiVersion: obj.apiVersion } : {}),
        ...(obj.kind ? { kind: obj.kind } : {}),
        name: obj.metadata.name,
        ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
        ...(obj.metadata.uid ? { uid: obj.metadata.uid } : {}),
        ...(obj.metadata.resourceVersion ? { resourceVersion: obj.metadata.resourceVersion } : {}),
      },
      reason,
      message: text,
      type,
      source: { component: this.opts.component, ...(this.opts.instance ? { host: this.opts.instance } : {}) },
      firstTimestamp: ts,
      lastTimestamp: ts,
      count: 1,
      reportingComponent: this.opts.component,
      ...(this.opts.instance ? { reportingInstance: this.opts.instance } : {}),
    };
  }

  /**
   * Records an event; resolves once written (or dropped, or failed, which is reported and
   * swallowed). A repeat of an earlier report about the same object patches that Event's count.
   */
  async record(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const ev = this.build(obj, type, reason, message);
    const key = eventKey(ev);
    const previous = this.inFlight.get(key.aggregate) ?? Promise.resolve();
    const done = previous.then(() => this.write(ev, key));
    this.inFlight.set(key.aggregate, done);
    try {
      await done;
    } finally {
      if (this.inFlight.get(key.aggregate) === done) this.inFlight.delete(key.aggregate);
    }
  }

  private async write(ev: Event, key: EventKey): Promise<void> {
    const now = this.opts.monotonicNow ? this.opts.monotonicNow() : performance.now();
    const decision = this.correlator.decide(key, now);
    try {
      if (decision.action === 'drop') {
        this.opts.onDropped?.(ev);
        return;
      }
      if (decision.action === 'patch') {
        try {
          await this.events.mergePatch(
            decision.name,
            { count: decision.count, lastTimestamp: ev.lastTimestamp, message: ev.message },
            ev.metadata.namespace,
          );
          return;
        } catch (err) {
          // Events expire (the API server's TTL) or are deleted: start a new one.
          if (!isNotFound(err)) throw err;
          this.correlator.forget(key);
        }
      }
      await this.events.create(ev);
      this.correlator.created(key, ev.metadata.name, now);
    } catch (err) {
      this.opts.onError?.(err, ev);
    }
  }
}

function eventKey(ev: Event): EventKey {
  const o = ev.involvedObject;
  const object = [o.kind, o.namespace ?? '', o.name, o.uid ?? ''].join('/');
  return {
    object,
    aggregate: [object, ev.source?.component ?? '', ev.type, ev.reason, ev.message].join('\u0000'),
  };
}
