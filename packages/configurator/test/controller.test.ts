/**
 * The controller's executors against a recording fake client: which writes a plan turns into, in
 * which order, with which content, and which Events.
 */
import {
  APPLIED_NUMBER_LABEL,
  ASSIGNED_AT_ANNOTATION,
  HIGHEST_NUMBER_ANNOTATION,
  MOVE_ANNOTATION,
  NODE_UID_ANNOTATION,
  REPORT_LABEL,
  REVISION_NUMBER_LABEL,
  SPEC_HASH_ANNOTATION,
  nodeConfigSpec,
  type NetworkConfigRevision,
  type NodeConfig,
  type NodeConfigStatus,
} from '@nodenet/api';
import type { KubeObject, Node } from '@nodenet/kube';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  controlEvents,
  executePlan,
  type ExecContext,
  Metrics,
  ASSIGNED_BY_ANNOTATION,
  nodeConfigFor,
  nodeSpecHash,
  observe,
  plan,
  type Plan,
  RowLabelGate,
  WritePace,
  rowLabelActions,
  rowLabels,
} from '@nodenet/configurator';
import { A, B, M0, T0, completed, done, input, invalid, nc, provisioning, rev } from './rollout/fixtures.js';

type Write = { verb: string; kind: string; name: string; body?: unknown };

/** A fake API: keeps objects, records every write, fails the writes it is told to. */
class RecordingClient {
  readonly writes: Write[] = [];
  readonly events: { name: string; type: string; reason: string; message: string }[] = [];
  failing = new Set<string>();
  revisions = new Map<string, NetworkConfigRevision>();
  nodeConfigs = new Map<string, NodeConfig>();
  nodes = new Map<string, Node>();

  private check(verb: string, kind: string, name: string, body?: unknown): void {
    this.writes.push({ verb, kind, name, ...(body !== undefined ? { body } : {}) });
    if (this.failing.has(`${verb} ${kind} ${name}`))
      throw new Error(`injected failure: ${verb} ${kind} ${name}`);
  }

  ctx(over: Partial<ExecContext> = {}): ExecContext {
    return {
      writer: {
        nodeConfig: {
          create: async (o) => {
            this.check('create', 'NodeConfig', o.metadata.name, o);
            this.nodeConfigs.set(o.metadata.name, o);
            return o;
          },
          mergePatch: async (name, patch) => {
            this.check('patch', 'NodeConfig', name, patch);
            const p = patch as Partial<NodeConfig>;
            const old = this.nodeConfigs.get(name) as NodeConfig;
            const next = {
              ...old,
              metadata: {
                ...old.metadata,
                ...p.metadata,
                labels: mergeMap(old.metadata.labels, p.metadata?.labels),
                annotations: mergeMap(old.metadata.annotations, p.metadata?.annotations),
                // As the API server does: a spec change is a new generation.
                generation: (old.metadata.generation ?? 1) + (p.spec ? 1 : 0),
              },
              spec: p.spec ?? old.spec,
            };
            this.nodeConfigs.set(name, next);
            return next;
          },
          delete: async (name) => {
            this.check('delete', 'NodeConfig', name);
            this.nodeConfigs.delete(name);
          },
        },
        revision: {
          updateStatus: async (r) => {
            this.check('status', 'NetworkConfigRevision', r.metadata.name, r.status);
            this.revisions.set(r.metadata.name, r);
            return r;
          },
          delete: async (name) => {
            this.check('delete', 'NetworkConfigRevision', name);
            this.revisions.delete(name);
          },
          mergePatch: async (name, patch) => {
            this.check('patch', 'NetworkConfigRevision', name, patch);
            const old = this.revisions.get(name) as NetworkConfigRevision;
            const ann = (patch as { metadata: { annotations: Record<string, string> } }).metadata.annotations;
            const next = {
              ...old,
              metadata: { ...old.metadata, annotations: { ...old.metadata.annotations, ...ann } },
            };
            this.revisions.set(name, next);
            return next;
          },
        },
        events: {
          record: async (obj: KubeObject, type, reason, message) => {
            this.events.push({ name: obj.metadata.name ?? '', type, reason, message });
          },
        },
      },
      cache: {
        revision: (n) => this.revisions.get(n),
        nodeConfig: (n) => this.nodeConfigs.get(n),
        node: (n) => this.nodes.get(n),
        wroteRevision: () => undefined,
        wroteNodeConfig: () => undefined,
      },
      log: pino({ level: 'silent' }),
      metrics: new Metrics(),
      identity: 'test-1',
      isLeader: () => true,
      now: T0,
      specFor: (r, n) =>
        nodeConfigSpec({ config: r.spec.config, hash: r.spec.hash }, n.metadata.labels ?? {}),
      concurrency: 4,
      background: (p) => void p,
      ...over,
    };
  }
}

/** A JSON merge patch of a string map: null removes a key. */
function mergeMap(
  old: Record<string, string> | undefined,
  patch: Record<string, string | null> | undefined,
): Record<string, string> {
  const out: Record<string, string> = { ...old };
  for (const [k, v] of Object.entries(patch ?? {})) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

const k8sNode = (name: string): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, uid: `uid-${name}`, labels: {} },
});

function setUp(revisions: NetworkConfigRevision[], ncs: NodeConfig[], nodeNames: string[]): RecordingClient {
  const c = new RecordingClient();
  for (const r of revisions)
    c.revisions.set(r.metadata.name, { ...r, metadata: { ...r.metadata, uid: `uid-${r.metadata.name}` } });
  for (const x of ncs) c.nodeConfigs.set(x.metadata.name, x);
  for (const n of nodeNames) c.nodes.set(n, k8sNode(n));
  return c;
}

const planFor = (revisions: NetworkConfigRevision[], ncs: NodeConfig[], nodeNames: string[]): Plan => {
  const i = input({
    revisions,
    nodeConfigs: ncs,
    nodes: nodeNames.map((name) => ({ name, labels: {}, ready: true })),
  });
  return plan({ ...i, observations: observe(new Map(), i.nodes, ncs, M0) });
};

describe('nodeConfigFor', () => {
  it('builds the NodeConfig: spec, assignment annotations (spec hash, move), number label, owners', () => {
    const r = { ...rev(3, A), metadata: { name: 'rev-3-aaaaaaaaaa', uid: 'u-r' } };
    const spec = nodeConfigSpec({ config: r.spec.config, hash: r.spec.hash }, {});
    const o = nodeConfigFor(r, k8sNode('n1'), { spec, move: 'rollback', now: T0, identity: 'me' });
    expect(o.metadata).toEqual({
      name: 'n1',
      annotations: {
        [ASSIGNED_AT_ANNOTATION]: new Date(T0).toISOString(),
        [ASSIGNED_BY_ANNOTATION]: 'me',
        [SPEC_HASH_ANNOTATION]: nodeSpecHash(spec),
        [MOVE_ANNOTATION]: 'rollback',
        // The Node it was written for: a Node re-created under the name has another uid (issue 35).
        [NODE_UID_ANNOTATION]: 'uid-n1',
      },
      labels: { [REVISION_NUMBER_LABEL]: '3' },
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'uid-n1' },
        {
          apiVersion: 'network.nodenet.io/v1alpha1',
          kind: 'NetworkConfigRevision',
          name: 'rev-3-aaaaaaaaaa',
          uid: 'u-r',
        },
      ],
    });
    expect(o.spec).toBe(spec);
  });
});

describe('executePlan', () => {
  it('new nodes: one create per assignment, a NodesAssigned Event, then the revision status', async () => {
    const revs = [rev(1, A)];
    const c = setUp(revs, [], ['n00', 'n01']);
    const p = planFor(revs, [], ['n00', 'n01']);
    const background: Promise<void>[] = [];
    expect(await executePlan(p, c.ctx({ background: (x) => background.push(x) }))).toBe(0);
    await Promise.all(background);
    expect(c.writes.map((w) => `${w.verb} ${w.kind} ${w.name}`)).toEqual([
      'create NodeConfig n00',
      'status NetworkConfigRevision rev-1-aaaaaaaaaa',
      'patch NetworkConfigRevision rev-1-aaaaaaaaaa', // the highest number ever used (1)
      'patch NetworkConfigRevision rev-1-aaaaaaaaaa', // the desired label
    ]);
    expect(c.nodeConfigs.get('n00')?.metadata.annotations?.[MOVE_ANNOTATION]).toBe('forward');
    expect(c.events.map((e) => e.reason)).toEqual(['NodesAssigned']);
  });

  it('invalidation: the status (with why) is written before any node moves, then the Warning Event, then rollbacks as conditional patches', async () => {
    const revs = [rev(2, B), completed(rev(1, A))];
    const ncs = [
      {
        ...nc('n00', B, { number: 2, status: invalid(A, 'bgp down') }),
        metadata: { ...nc('n00', B).metadata, resourceVersion: '7' },
      },
      nc('n01', A, { status: done(A) }),
    ];
    const c = setUp(revs, ncs, ['n00', 'n01']);
    expect(await executePlan(planFor(revs, ncs, ['n00', 'n01']), c.ctx())).toBe(0);
    const order = c.writes.map((w) => `${w.verb} ${w.kind} ${w.name}`);
    expect(order[0]).toBe('status NetworkConfigRevision rev-2-bbbbbbbbbb');
    expect(order[1]).toBe('patch NodeConfig n00');
    expect(c.writes[0]?.body).toMatchObject({
      isInvalid: true,
      failedNodes: [{ node: 'n00', message: 'bgp down' }],
    });
    expect(c.writes[1]?.body).toMatchObject({
      metadata: { resourceVersion: '7', annotations: { [MOVE_ANNOTATION]: 'rollback' } },
      spec: { revision: A },
    });
    expect(c.events[0]).toMatchObject({
      type: 'Warning',
      reason: 'RevisionInvalidated',
      name: 'rev-2-bbbbbbbbbb',
    });
  });

  it('a failed invalidation write stops the pass: no node is moved on a half-written invalidation', async () => {
    const revs = [rev(2, B), rev(1, A)];
    const ncs = [nc('n00', B, { status: invalid(A) })];
    const c = setUp(revs, ncs, ['n00', 'n01']);
    c.failing.add('status NetworkConfigRevision rev-2-bbbbbbbbbb');
    expect(await executePlan(planFor(revs, ncs, ['n00', 'n01']), c.ctx())).toBe(1);
    expect(c.writes.map((w) => w.verb + ' ' + w.name)).toEqual(['status rev-2-bbbbbbbbbb']);
    expect(c.events).toEqual([]);
  });

  it('a standby writes nothing', async () => {
    const revs = [rev(1, A)];
    const c = setUp(revs, [], ['n00']);
    await executePlan(planFor(revs, [], ['n00']), c.ctx({ isLeader: () => false }));
    expect(c.writes).toEqual([]);
  });

  it('records the highest revision number ever used on the revisions that lack it', async () => {
    const revs = [rev(3, B), completed(rev(1, A))];
    const c = setUp(revs, [], []);
    await executePlan(planFor(revs, [], []), c.ctx());
    const annotating = (w: { body?: unknown }) =>
      JSON.stringify(w.body ?? {}).includes(HIGHEST_NUMBER_ANNOTATION);
    expect(c.writes.filter((w) => w.verb === 'patch' && annotating(w))).toEqual([
      {
        verb: 'patch',
        kind: 'NetworkConfigRevision',
        name: 'rev-3-bbbbbbbbbb',
        body: { metadata: { annotations: { [HIGHEST_NUMBER_ANNOTATION]: '3' } } },
      },
      {
        verb: 'patch',
        kind: 'NetworkConfigRevision',
        name: 'rev-1-aaaaaaaaaa',
        body: { metadata: { annotations: { [HIGHEST_NUMBER_ANNOTATION]: '3' } } },
      },
    ]);
  });

  it('control Events from condition changes: Paused, Resumed, and a retry that cannot be honoured', () => {
    const cond = (type: string, status: 'True' | 'False', reason = 'r') => ({
      type,
      status,
      reason,
      message: `${type} ${status}`,
      lastTransitionTime: '2025-01-01T00:00:00Z',
    });
    expect(controlEvents([], [cond('Paused', 'True')])).toEqual([
      { type: 'Normal', reason: 'Paused', message: 'Paused True' },
    ]);
    expect(controlEvents([cond('Paused', 'True')], [cond('Paused', 'False')])).toEqual([
      { type: 'Normal', reason: 'Resumed', message: 'Paused False' },
    ]);
    expect(controlEvents([cond('Paused', 'False')], [cond('Paused', 'False')])).toEqual([]);
    expect(controlEvents([], [cond('RetryRequested', 'False', 'InputsChanged')])).toEqual([
      { type: 'Warning', reason: 'RetryRequested', message: 'RetryRequested False' },
    ]);
  });

  it('RolloutComplete is recorded once, when completedAt is first set; newly degraded nodes get a Warning Event', async () => {
    const revs = [rev(1, A)];
    const ncs = [nc('n00', A, { status: done(A) })];
    const c = setUp(revs, ncs, ['n00']);
    await executePlan(planFor(revs, ncs, ['n00']), c.ctx());
    expect(c.events.map((e) => e.reason)).toEqual(['RolloutComplete']);

    // A late joiner whose agent found itself misconfigured before answering: degraded, Warning
    // Event; no second RolloutComplete. (One that refuses the catch-up counts: issue 35.)
    const now = [c.revisions.get('rev-1-aaaaaaaaaa') as NetworkConfigRevision];
    const misconfigured = {
      conditions: [
        {
          type: 'AgentReady',
          status: 'False' as const,
          reason: 'AgentMisconfigured',
          message: 'vtep missing',
          lastTransitionTime: new Date(0).toISOString(),
        },
      ],
    };
    const more = [...ncs, nc('late', A, { move: 'catch-up', status: misconfigured })];
    c.nodes.set('late', k8sNode('late'));
    await executePlan(planFor(now, more, ['n00', 'late']), c.ctx());
    expect(c.events.map((e) => [e.type, e.reason])).toEqual([
      ['Normal', 'RolloutComplete'],
      ['Warning', 'NodesDegraded'],
    ]);
    expect(c.events[1]?.message).toContain('late: unavailable: agent misconfigured: vtep missing');
  });

  it('collects the NodeConfig of a gone node with its uid as precondition', async () => {
    const revs = [rev(1, A)];
    const ncs = [nc('gone', A, { status: done(A) }), nc('n00', A, { status: done(A) })];
    const c = setUp(revs, ncs, ['n00']);
    await executePlan(planFor(revs, ncs, ['n00']), c.ctx());
    expect(c.writes.filter((w) => w.verb === 'delete').map((w) => w.name)).toEqual(['gone']);
    expect(c.events.map((e) => e.reason)).toContain('NodeConfigCollected');
  });
});

describe('one write per node per move', () => {
  /** The NodeConfig with the row labels the configurator keeps (what a settled object carries). */
  const settled = (x: NodeConfig, revs: NetworkConfigRevision[]): NodeConfig => ({
    ...x,
    metadata: {
      ...x.metadata,
      labels: Object.fromEntries(
        Object.entries({ ...x.metadata.labels, ...rowLabels(x, revs) }).filter(
          (e): e is [string, string] => e[1] !== null,
        ),
      ),
    },
  });
  const ncWrites = (c: RecordingClient) => c.writes.filter((w) => w.kind === 'NodeConfig');
  /** A controller pass over node n00 at `mono`, with its status replaced by `status` when given. */
  const passesOverN00 =
    (c: RecordingClient, revs: NetworkConfigRevision[], gate: RowLabelGate) =>
    async (mono: number, status?: NodeConfigStatus): Promise<void> => {
      const prev = c.nodeConfigs.get('n00') as NodeConfig;
      const cur = status ? { ...prev, status } : prev;
      c.nodeConfigs.set('n00', cur);
      const i = input({
        revisions: revs,
        nodeConfigs: [cur],
        nodes: [{ name: 'n00', labels: {}, ready: true }],
      });
      const p = plan({ ...i, observations: observe(new Map(), i.nodes, [cur], mono) });
      expect(await executePlan(p, c.ctx({ rowLabels: { gate, mono } }))).toBe(0);
    };

  it('an agent that names the revision numbers: the move is the one write; its answers make no other', async () => {
    const revs = [rev(2, B), completed(rev(1, A))];
    const numbered = (st: NodeConfigStatus, answered: number, applied: number): NodeConfigStatus => ({
      ...st,
      revisionNumber: answered,
      appliedRevisionNumber: applied,
    });
    // n00 on revision 1; an older agent left its row labels, which the move removes.
    const old = nc('n00', A, { number: 1, status: numbered(done(A), 1, 1) });
    old.metadata.labels = {
      ...old.metadata.labels,
      [REPORT_LABEL]: 'provisioned',
      [APPLIED_NUMBER_LABEL]: '1',
    };
    const c = setUp(revs, [old], ['n00']);
    const gate = new RowLabelGate(1000);
    const pass = passesOverN00(c, revs, gate);
    await pass(M0);
    expect(ncWrites(c).map((w) => w.body)).toMatchObject([
      {
        metadata: {
          labels: { [REVISION_NUMBER_LABEL]: '2', [REPORT_LABEL]: null, [APPLIED_NUMBER_LABEL]: null },
        },
        spec: { revision: B },
      },
    ]);
    // The agent answers generation 2 (revision 2): provisioning, then provisioned; passes go on.
    await pass(M0 + 100, numbered(provisioning(A, T0, 2), 2, 1));
    await pass(M0 + 2000, numbered(done(B, T0, 2), 2, 2));
    await pass(M0 + 5000);
    expect(ncWrites(c)).toHaveLength(1);
    expect(gate.nextDueInMs(M0 + 5000)).toBeUndefined();
  });

  it('an older agent (no revision numbers): a move is one patch carrying spec, labels and annotations; no other write to that NodeConfig', async () => {
    const revs = [rev(2, B), completed(rev(1, A))];
    // n00 on revision 1, row labels settled; revision 2 moves it.
    const ncs = [settled(nc('n00', A, { number: 1, status: done(A) }), revs)];
    const c = setUp(revs, ncs, ['n00']);
    const p = planFor(revs, ncs, ['n00']);
    expect(await executePlan(p, c.ctx({ rowLabels: { gate: new RowLabelGate(), mono: M0 } }))).toBe(0);
    expect(ncWrites(c).map((w) => `${w.verb} ${w.name}`)).toEqual(['patch n00']);
    expect(ncWrites(c)[0]?.body).toMatchObject({
      metadata: {
        labels: { [REVISION_NUMBER_LABEL]: '2', [REPORT_LABEL]: 'pending' },
        annotations: { [MOVE_ANNOTATION]: 'forward', [SPEC_HASH_ANNOTATION]: expect.any(String) },
      },
      spec: { revision: B },
    });
    // The row after the move: desired 2, applied 1 (still on the host), pending: nothing more to write.
    const after = c.nodeConfigs.get('n00') as NodeConfig;
    expect(after.metadata.labels).toMatchObject({ [APPLIED_NUMBER_LABEL]: '1' });
    expect(rowLabelActions([after], revs, new Set())).toEqual([]);
  });

  it('nodes whose row did not change get no write: neither labels nor anything else', async () => {
    const revs = [completed(rev(1, A))];
    const ncs = ['n00', 'n01', 'n02'].map((n) => settled(nc(n, A, { number: 1, status: done(A) }), revs));
    const c = setUp(revs, ncs, ['n00', 'n01', 'n02']);
    await executePlan(planFor(revs, ncs, ['n00', 'n01', 'n02']), c.ctx());
    expect(ncWrites(c)).toEqual([]);
  });

  it('a changed row is written once it has settled, with what it says then: a short-lived report is never written', async () => {
    const revs = [rev(2, B), completed(rev(1, A))];
    const gate = new RowLabelGate(1000);
    // n00 was moved to revision 2 (the move wrote its row: pending); its agent now answers.
    const moved = {
      ...settled(nc('n00', B, { number: 2, status: done(A) }), revs),
      metadata: {
        ...nc('n00', B).metadata,
        generation: 2,
        labels: { [REVISION_NUMBER_LABEL]: '2', [REPORT_LABEL]: 'pending', [APPLIED_NUMBER_LABEL]: '1' },
      },
    };
    const c = setUp(revs, [moved], ['n00']);
    const pass = passesOverN00(c, revs, gate);
    await pass(M0, provisioning(A, T0, 2)); // the row differs from here on
    expect(gate.nextDueInMs(M0)).toBe(1000);
    await pass(M0 + 600, done(B, T0, 2)); // provisioning lasted 0.6 s: never shown
    expect(ncWrites(c)).toEqual([]);
    expect(gate.nextDueInMs(M0 + 600)).toBe(400);
    await pass(M0 + 1000, done(B, T0, 2));
    expect(ncWrites(c).map((w) => w.body)).toEqual([
      { metadata: { labels: { [REPORT_LABEL]: 'provisioned', [APPLIED_NUMBER_LABEL]: '2' } } },
    ]);
    // Written and matching: forgotten, no further write.
    await pass(M0 + 3000, done(B, T0, 2));
    expect(ncWrites(c)).toHaveLength(1);
    expect(gate.nextDueInMs(M0 + 3000)).toBeUndefined();
  });

  it('a row that stays in one state longer than the settle time (a confirm window) is shown', async () => {
    const revs = [rev(2, B), completed(rev(1, A))];
    const gate = new RowLabelGate(1000);
    const x = {
      ...nc('n00', B, { number: 2, status: provisioning(A, T0, 2), generation: 2 }),
    };
    x.metadata.labels = {
      [REVISION_NUMBER_LABEL]: '2',
      [REPORT_LABEL]: 'pending',
      [APPLIED_NUMBER_LABEL]: '1',
    };
    const c = setUp(revs, [x], ['n00']);
    for (const mono of [M0, M0 + 500, M0 + 1000, M0 + 1500]) {
      const cur = c.nodeConfigs.get('n00') as NodeConfig;
      const i = input({
        revisions: revs,
        nodeConfigs: [cur],
        nodes: [{ name: 'n00', labels: {}, ready: true }],
      });
      await executePlan(
        plan({ ...i, observations: observe(new Map(), i.nodes, [cur], mono) }),
        c.ctx({ rowLabels: { gate, mono } }),
      );
    }
    expect(ncWrites(c).map((w) => w.body)).toEqual([
      { metadata: { labels: { [REPORT_LABEL]: 'provisioning' } } },
    ]);
  });
});

describe('progress writes are paced', () => {
  const statusWrites = (c: RecordingClient) => c.writes.filter((w) => w.verb === 'status');
  const reasons = (c: RecordingClient) => c.events.map((e) => e.reason);

  it('a revision status whose only change is its counts is written at most once a second, and the last counts land; NodesAssigned gathered over passes', async () => {
    // A revision that already ran on a node (`status.ranAt`, issue 35): the first report sets that
    // once, a record change written at once; this test is about the counts alone.
    const revs = [{ ...rev(1, A), status: { ranAt: new Date(T0).toISOString() } }];
    const names = ['n00', 'n01', 'n02', 'n03', 'n04'];
    const c = setUp(revs, [], names);
    const pace = new WritePace({ statusIntervalMs: 1000, assignedWindowMs: 5000 });
    let observations = new Map() as ReturnType<typeof observe>;
    /** A pass at `mono` after the agents of `provisioned` reported the revision. */
    const pass = async (mono: number, provisioned: string[] = []): Promise<void> => {
      for (const n of provisioned) {
        const x = c.nodeConfigs.get(n) as NodeConfig;
        c.nodeConfigs.set(n, { ...x, metadata: { ...x.metadata, generation: 1 }, status: done(A) });
      }
      const i = input({
        revisions: [...c.revisions.values()],
        nodeConfigs: [...c.nodeConfigs.values()],
        nodes: names.map((name) => ({ name, labels: {}, ready: true })),
        policy: { updateLimit: { kind: 'count', count: 2 } },
        mono,
      });
      observations = observe(observations, i.nodes, i.nodeConfigs, mono);
      const p = plan({ ...i, observations });
      expect(
        await executePlan(p, c.ctx({ pace: { status: pace.status, assigned: pace.assigned, mono } })),
      ).toBe(0);
    };
    const status = () => c.revisions.get('rev-1-aaaaaaaaaa')?.status;

    await pass(M0); // n00, n01 assigned; the first status (a new record) written at once
    expect(statusWrites(c)).toHaveLength(1);
    expect(reasons(c)).toEqual(['NodesAssigned']);
    await pass(M0 + 200, ['n00', 'n01']); // n02, n03 assigned; only the counts changed: held
    expect(statusWrites(c)).toHaveLength(1);
    expect(pace.nextDueInMs(M0 + 200)).toBe(800);
    expect(reasons(c)).toEqual(['NodesAssigned']);
    await pass(M0 + 1000); // the pass asked for: the counts of now land
    expect(statusWrites(c)).toHaveLength(2);
    expect(status()).toMatchObject({ ready: 2, ongoing: 2, queued: 1 });
    await pass(M0 + 1300, ['n02', 'n03']); // n04 assigned: held again
    expect(statusWrites(c)).toHaveLength(2);
    // The assignments gathered since the first Event are told in one Event, at the latest when the
    // window ends.
    expect(pace.assigned.nextDueInMs(M0 + 1300)).toBe(3700);
    await pass(M0 + 1500, ['n04']); // complete: written at once, the gathered assignments told first
    expect(statusWrites(c)).toHaveLength(3);
    expect(status()).toMatchObject({ ready: 5, phase: 'Complete' });
    expect(reasons(c)).toEqual(['NodesAssigned', 'NodesAssigned', 'RolloutComplete']);
    expect(c.events[1]?.message).toBe('assigned 3 node(s) to revision 1 over 2 passes: n02, n03, n04');
    expect(pace.nextDueInMs(M0 + 1500)).toBeUndefined();
    await pass(M0 + 5000);
    expect(c.events).toHaveLength(3);
    expect(statusWrites(c)).toHaveLength(3);
  });
});
