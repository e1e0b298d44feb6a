/**
 * The build step of a pass (invariants 3 and 4): validates the inputs, writes their status (with an
 * Event when one is newly rejected) and creates a revision when the valid inputs produce a new
 * configuration. The decision is buildRevision's (revisions.ts); this carries it out.
 */
import { findCondition, type InputObject, type Inputs, type NetworkConfigRevision } from '@nodenet/api';
import {
  isAlreadyExists,
  isConflict,
  isNotFound,
  type Clients,
  type EventRecorder,
  type Informer,
  type ResourceClient,
} from '@nodenet/kube';
import type { Logger } from 'pino';
import { buildRevision } from './revisions.js';

export interface BuildContext {
  clients: Clients;
  informers: {
    vrf: Informer<Inputs['vrf'][number]>;
    layer2: Informer<Inputs['layer2'][number]>;
    routingTable: Informer<Inputs['routingTable'][number]>;
    revision: Informer<NetworkConfigRevision>;
  };
  isLeader: () => boolean;
  log: Logger;
  events: EventRecorder;
  /** Runs `fn` over `items` with the controller's write concurrency. */
  parallel: <T>(items: T[], fn: (item: T) => Promise<void>) => Promise<void>;
}

export class RevisionBuilder {
  /** The hash the valid inputs produced last (kept while the inputs are blocked). */
  private lastInputHash: string | undefined;
  private lastBuildNote = '';

  constructor(private readonly ctx: BuildContext) {}

  get inputHash(): string | undefined {
    return this.lastInputHash;
  }

  /** Validates the inputs, writes their status and creates a revision when needed. */
  async run(now: number): Promise<{ inputHash: string | undefined; dirty: boolean }> {
    let dirty = false;
    const inputs: Inputs = {
      vrf: this.ctx.informers.vrf.list(),
      layer2: this.ctx.informers.layer2.list(),
      routingTable: this.ctx.informers.routingTable.list(),
    };
    const result = buildRevision(inputs, this.ctx.informers.revision.list(), now);
    // Blocked inputs (some invalid): the last valid configuration stays in force (invariant 3).
    this.lastInputHash = result.hash ?? this.lastInputHash;
    await this.ctx.parallel(result.inputStatusUpdates, async (u) => {
      if (!this.ctx.isLeader()) return;
      const client = this.inputClient(u.object);
      try {
        const written = await client.patchStatus(u.object.metadata.name, {
          metadata: { resourceVersion: u.object.metadata.resourceVersion },
          status: u.status,
        });
        this.inputInformer(u.object).mutated(written as never);
      } catch (err) {
        if (isConflict(err) || isNotFound(err)) dirty = true;
        else throw err;
      }
      const accepted = findCondition(u.status.conditions, 'Accepted');
      if (u.newlyRejected) {
        this.ctx.log.warn(
          { kind: u.object.kind, input: u.object.metadata.name, cause: u.newlyRejected },
          'input rejected',
        );
        await this.ctx.events.record(u.object, 'Warning', 'InputRejected', u.newlyRejected);
      } else if (accepted) {
        this.ctx.log.info(
          {
            kind: u.object.kind,
            input: u.object.metadata.name,
            accepted: accepted.status,
            reason: accepted.reason,
          },
          'input status updated',
        );
      }
    });
    const d = result.decision;
    if (d.action === 'create') {
      if (!this.ctx.isLeader()) return { inputHash: result.hash, dirty };
      try {
        const created = await this.ctx.clients.revision.create(d.revision);
        this.ctx.informers.revision.mutated(created);
        this.ctx.log.info(
          {
            revision: created.metadata.name,
            number: created.spec.number,
            hash: created.spec.hash,
            cause: d.reason,
          },
          'revision created',
        );
        await this.ctx.events.record(
          created,
          'Normal',
          'RevisionCreated',
          `revision ${created.spec.number} created: ${d.reason}`,
        );
        if (d.retryOf)
          await this.ctx.events.record(
            d.retryOf,
            'Normal',
            'RetryRequested',
            `retried as revision ${created.spec.number} (${created.metadata.name}); this revision is kept for inspection`,
          );
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        dirty = true;
      }
      this.lastBuildNote = '';
    } else {
      const note = `${d.action}: ${d.reason}`;
      if (note !== this.lastBuildNote) {
        this.lastBuildNote = note;
        if (d.action === 'blocked') this.ctx.log.warn({ cause: d.reason }, 'no new revision: inputs invalid');
        else this.ctx.log.info({ cause: d.reason }, 'no new revision');
      }
    }
    return { inputHash: this.lastInputHash, dirty };
  }

  private inputClient(o: InputObject): ResourceClient<InputObject> {
    const c = this.ctx.clients;
    return (
      o.kind === 'VRFRouteConfiguration'
        ? c.vrf
        : o.kind === 'Layer2NetworkConfiguration'
          ? c.layer2
          : c.routingTable
    ) as never;
  }

  private inputInformer(o: InputObject): Informer<InputObject> {
    const i = this.ctx.informers;
    return (
      o.kind === 'VRFRouteConfiguration'
        ? i.vrf
        : o.kind === 'Layer2NetworkConfiguration'
          ? i.layer2
          : i.routingTable
    ) as never;
  }
}
