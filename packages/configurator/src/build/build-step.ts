/**
 * The build step of a pass (invariants 3 and 4): validates the inputs, writes their status (with an
 * Event when one is newly rejected) and creates a revision when the valid inputs produce a new
 * configuration. The decision is buildRevision's (revisions.ts); this carries it out.
 */
import {
  findCondition,
  type AgentConfiguration,
  type BGPPeering,
  type InputObject,
  type Inputs,
  type NetworkConfigRevision,
} from '@nodenet/api';
import {
  KubeApiError,
  isAlreadyExists,
  isConflict,
  isNotFound,
  type Clients,
  type EventRecorder,
  type Informer,
  type ResourceClient,
} from '@nodenet/kube';
import type { Logger } from 'pino';
import {
  buildRevision,
  type BuildOptions,
  type InputStatusUpdate,
  type RevisionDecision,
} from './revisions.js';

/** The informers the build reads: its inputs and the revisions (a subset of the controller's). */
export interface BuildInformers {
  vrf: Informer<Inputs['vrf'][number]>;
  layer2: Informer<Inputs['layer2'][number]>;
  routingTable: Informer<Inputs['routingTable'][number]>;
  bgpPeering: Informer<BGPPeering>;
  agentConfiguration: Informer<AgentConfiguration>;
  revision: Informer<NetworkConfigRevision>;
}

export interface BuildContext {
  clients: Clients;
  informers: BuildInformers;
  isLeader: () => boolean;
  log: Logger;
  events: EventRecorder;
  /** Runs `fn` over `items` with the controller's write concurrency. */
  parallel: <T>(items: T[], fn: (item: T) => Promise<void>) => Promise<void>;
}

/** How one run of the build step ended. */
export interface BuildOutcome {
  /** The hash of the valid inputs (the last one known while they are blocked). */
  inputHash: string | undefined;
  /** Everything the run had to do was done: nothing to retry until something changes. */
  done: boolean;
  /** The API's error when the revision to create was refused. */
  createError?: string;
}

export class RevisionBuilder {
  /** The hash the valid inputs produced last (kept while the inputs are blocked). */
  private lastInputHash: string | undefined;
  /** Whether the last run decided to create a revision (the inputs differ from the newest). */
  private lastWanted = false;
  private lastBuildNote = '';

  constructor(private readonly ctx: BuildContext) {}

  get inputHash(): string | undefined {
    return this.lastInputHash;
  }

  /**
   * Whether the inputs, as last built, still differ from every revision: a revision the last run
   * wanted does not exist (its create failed or was skipped). Read on every pass (level-triggered).
   */
  get behind(): boolean {
    if (!this.lastWanted || this.lastInputHash === undefined) return false;
    return !this.ctx.informers.revision.list().some((r) => r.spec.hash === this.lastInputHash);
  }

  /** The inputs as the informers hold them now. */
  inputs(): Inputs {
    return {
      vrf: this.ctx.informers.vrf.list(),
      layer2: this.ctx.informers.layer2.list(),
      routingTable: this.ctx.informers.routingTable.list(),
      bgpPeering: this.ctx.informers.bgpPeering.list(),
      agentConfiguration: this.ctx.informers.agentConfiguration.list(),
    };
  }

  /**
   * Validates the inputs, creates a revision when needed, then writes the inputs' status (best
   * effort: a refused status write never stops the build; it is retried on a later pass).
   */
  async run(now: number, opts: BuildOptions = {}): Promise<BuildOutcome> {
    const inputs = this.inputs();
    const result = buildRevision(inputs, this.ctx.informers.revision.list(), now, opts);
    // Blocked inputs (some invalid): the last valid configuration stays in force (invariant 3).
    this.lastInputHash = result.hash ?? this.lastInputHash;
    const d = result.decision;
    this.lastWanted = d.action === 'create';
    let done = true;
    let createError: string | undefined;
    if (d.action === 'create') {
      const created = await this.create(d);
      if (typeof created === 'string') {
        createError = created;
        done = false;
      } else if (!created) done = false;
    } else this.noteNoBuild(d);
    if (!this.ctx.isLeader()) return { inputHash: this.lastInputHash, done: false };
    const updates =
      createError !== undefined ? result.statusesIfNotCreated(createError) : result.inputStatusUpdates;
    if (!(await this.writeStatuses(updates))) done = false;
    return { inputHash: this.lastInputHash, done, ...(createError !== undefined ? { createError } : {}) };
  }

  /** Creates the revision: true when created, false when skipped (not leader, exists), the error text when refused. */
  private async create(d: Extract<RevisionDecision, { action: 'create' }>): Promise<boolean | string> {
    if (!this.ctx.isLeader()) return false;
    let created: NetworkConfigRevision;
    try {
      created = await this.ctx.clients.revision.create(d.revision);
    } catch (err) {
      // Exists: another instance (or an earlier attempt whose answer was lost) made it; the cache
      // shows it on a later pass.
      if (isAlreadyExists(err)) return false;
      const text = errText(err);
      this.ctx.log.warn(
        { revision: d.revision.metadata.name, number: d.revision.spec.number, err: text },
        'revision not created; will retry',
      );
      return text;
    }
    this.ctx.informers.revision.mutated(created);
    this.lastBuildNote = '';
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
    return true;
  }

  private noteNoBuild(d: Exclude<RevisionDecision, { action: 'create' }>): void {
    const note = `${d.action}: ${d.reason}`;
    if (note === this.lastBuildNote) return;
    this.lastBuildNote = note;
    if (d.action === 'blocked') this.ctx.log.warn({ cause: d.reason }, 'no new revision: inputs invalid');
    else this.ctx.log.info({ cause: d.reason }, 'no new revision');
  }

  /** Writes the inputs' status; false when some write failed (retried on a later pass). */
  private async writeStatuses(updates: InputStatusUpdate[]): Promise<boolean> {
    let ok = true;
    await this.ctx.parallel(updates, async (u) => {
      if (!this.ctx.isLeader()) return;
      try {
        const written = await this.inputClient(u.object).patchStatus(u.object.metadata.name, {
          metadata: { resourceVersion: u.object.metadata.resourceVersion },
          status: u.status,
        });
        this.inputInformer(u.object).mutated(written);
      } catch (err) {
        ok = false;
        // A conflict or a deleted input: the informer brings the news. Anything else (too large, a
        // webhook, the API server gone) must not stop the build: logged, tried again later.
        if (!isConflict(err) && !isNotFound(err))
          this.ctx.log.warn(
            { kind: u.object.kind, input: u.object.metadata.name, err: errText(err) },
            'could not write input status; will retry',
          );
        return;
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
      if (u.newlySelectsNoNode) {
        this.ctx.log.warn(
          { kind: u.object.kind, input: u.object.metadata.name, cause: u.newlySelectsNoNode },
          'input selects no node',
        );
        await this.ctx.events.record(u.object, 'Warning', 'NoNodeMatches', u.newlySelectsNoNode);
      }
    });
    return ok;
  }

  private inputClient(o: InputObject): ResourceClient<InputObject> {
    return this.ctx.clients[inputKey(o)] as never;
  }

  private inputInformer(o: InputObject): Informer<InputObject> {
    return this.ctx.informers[inputKey(o)] as never;
  }
}

const errText = (err: unknown): string =>
  err instanceof KubeApiError || err instanceof Error ? err.message : String(err);

/** The key of an input's kind among the clients and informers (one name per kind). */
function inputKey(o: InputObject): 'vrf' | 'layer2' | 'bgpPeering' | 'routingTable' | 'agentConfiguration' {
  switch (o.kind) {
    case 'VRFRouteConfiguration':
      return 'vrf';
    case 'Layer2NetworkConfiguration':
      return 'layer2';
    case 'BGPPeering':
      return 'bgpPeering';
    case 'RoutingTable':
      return 'routingTable';
    case 'AgentConfiguration':
      return 'agentConfiguration';
  }
}
