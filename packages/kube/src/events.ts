/**
 * Records core/v1 Events about objects, the way `kubectl describe` and `kubectl get events` show
 * them. Event writes are best effort: a failure is reported to `onError` and never fails the caller.
 */
import { randomBytes } from 'node:crypto';
import type { Event, KubeObject, ResourceClient } from './resources.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  /** `source.component` / `reportingComponent`, e.g. `nodenet-configurator`. */
  component: string;
  /** Instance identity (pod or host name). */
  instance?: string;
  /** Namespace for events about cluster-scoped objects (Kubernetes uses `default`). */
  namespace?: string;
  onError?: (err: unknown, event: Event) => void;
}

/** Kubernetes caps event messages at 1 KiB in practice; longer ones are cut with an ellipsis. */
const MAX_MESSAGE = 1024;

export class EventRecorder {
  constructor(
    private readonly events: ResourceClient<Event>,
    private readonly opts: EventRecorderOptions,
  ) {}

  /** Builds the Event object (exported for tests and dry runs). */
  build(obj: KubeObject, type: EventType, reason: string, message: string, now = new Date()): Event {
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

  /** Records an event; resolves once written (or failed, which is reported and swallowed). */
  async record(obj: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const ev = this.build(obj, type, reason, message);
    try {
      await this.events.create(ev);
    } catch (err) {
      this.opts.onError?.(err, ev);
    }
  }
}
