/**
 * The pipeline's decision logic. The host drivers and health checks are small in-memory stand-ins
 * for the kernel/FRR boundary (this is a pure state-machine test); the checkpoint store is the real
 * one on a temp dir. The real drivers are exercised by the end-to-end tests in test/agent.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeConfigSpec } from '@nodenet/api';
import { readdirSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CheckpointStore,
  specHash,
  AgentMetrics,
  nextStep,
  Pipeline,
  buildStatus,
  decideNodenetReady,
  StatusReporter,
  type StatusReport,
  type StatusSink,
} from '@nodenet/agent';
import type { FaultPoint } from '@nodenet/agent';
import { FakeHealth, FakeHost } from './fake-host.js';
import { sampleSpec } from './fixtures.js';

class RecordingSink implements StatusSink {
  reports: StatusReport[] = [];
  busy = false;
  heartbeats = 0;
  report(r: StatusReport): void {
    this.reports.push(r);
  }
  heartbeat(): void {
    this.heartbeats++;
  }
  lastReported(): StatusReport | undefined {
    return this.reports.at(-1);
  }
}

/** The status the API shows once the sink's newest report was written. */
const shown = () => {
  const last = sink.lastReported();
  return last ? buildStatus(last, new Date()) : undefined;
};

const A = sampleSpec(1);
const B = sampleSpec(2);
const C = sampleSpec(3);

let dir: string;
let store: CheckpointStore;
let host: FakeHost;
let health: FakeHealth;
let sink: RecordingSink;
let metrics: AgentMetrics;
let faults: FaultPoint[];

const pipeline = (extra: Partial<ConstructorParameters<typeof Pipeline>[0]> = {}) =>
  new Pipeline({
    drivers: host,
    checkpoints: store,
    health,
    status: sink,
    metrics,
    fault: (p) => void faults.push(p),
    confirm: { windowMs: 0, intervalMs: 1000, unreachableLimitMs: 10_000 },
    ...extra,
  });

const metric = async (name: string): Promise<string[]> =>
  (await metrics.registry.metrics())
    .split('\n')
    .filter((l) => l.startsWith(name) && !l.startsWith('#'))
    .filter((l) => !l.endsWith(' 0'));

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nodenet-pipe-'));
  store = new CheckpointStore(dir);
  host = new FakeHost();
  health = new FakeHealth(host);
  sink = new RecordingSink();
  metrics = new AgentMetrics();
  faults = [];
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('pipeline: new spec', () => {
  it('applies netlink then FRR, checks health, checkpoints, and reports provisioning then provisioned', async () => {
    const p = pipeline();
    expect(await p.start()).toEqual({ kind: 'clean', applied: undefined });
    const outcome = await p.reconcile({ spec: A, generation: 4 });
    expect(outcome.kind).toBe('provisioned');
    expect(host.calls).toEqual([
      `netlink.apply ${A.revision.slice(0, 4)}`,
      `frr.apply ${A.revision.slice(0, 4)}`,
    ]);
    expect([host.netlinkState, host.frrState]).toEqual([A.revision, A.revision]);
    expect(sink.reports.map((r) => [r.configStatus, r.reason, r.lastAppliedRevision])).toEqual([
      ['provisioning', 'Applying', undefined],
      ['provisioned', 'Provisioned', A.revision],
    ]);
    expect(sink.reports[1]?.observedGeneration).toBe(4);
    expect(sink.reports[1]?.message).toBe(
      `revision ${A.revision.slice(0, 10)} applied; health: all 2 checks passed`,
    );
    expect((await store.readApplied()).kind === 'ok' && (await store.load()).applied?.revision).toBe(
      A.revision,
    );
    expect(await readdir(dir)).toEqual(['applied.json']);
    expect(faults).toEqual(['after-pending', 'after-netlink', 'after-frr', 'after-health', 'after-applied']);
    expect(await metric('nodenet_agent_applies_total')).toEqual([
      'nodenet_agent_applies_total{result="provisioned"} 1',
    ]);
    expect(p.appliedRevision).toBe(A.revision);
  });

  it('a health check broken by the new spec: restores the previous checkpoint and reports invalid naming the check', async () => {
    const p = pipeline();
    await p.reconcile({ spec: A });
    health.breaking.add(B.revision);
    host.calls = [];
    const outcome = await p.reconcile({ spec: B, assignedAt: 't1' });
    expect(outcome).toMatchObject({ kind: 'invalid', step: 'health', restored: true });
    expect([host.netlinkState, host.frrState]).toEqual([A.revision, A.revision]);
    expect(host.calls.slice(2)).toEqual([
      `netlink.apply ${A.revision.slice(0, 4)}`,
      `frr.apply ${A.revision.slice(0, 4)}`,
    ]);
    const last = sink.lastReported();
    expect(last).toMatchObject({
      configStatus: 'invalid',
      revision: B.revision,
      lastAppliedRevision: A.revision,
      reason: 'HealthCheckFailed',
    });
    expect(last?.message).toBe(
      'health check failed: tcp/spine-1 (no answer within 3000 ms after 3 attempt(s)); ' +
        `restored revision ${A.revision.slice(0, 10)}; health after restore: all 2 checks passed`,
    );
    const state = await store.load();
    expect(state.applied?.revision).toBe(A.revision);
    expect(state.pending).toBeUndefined();
    expect(state.rejected).toMatchObject({ revision: B.revision, specHash: specHash(B), assignedAt: 't1' });
    expect(await metric('nodenet_agent_apply_failures_total')).toEqual([
      'nodenet_agent_apply_failures_total{step="health"} 1',
    ]);
    expect(await metric('nodenet_agent_restores_total')).toEqual([
      'nodenet_agent_restores_total{cause="apply-failed",result="ok"} 1',
    ]);
  });

  it('does not apply a rejected attempt again, but does when the configurator re-assigns it (retry)', async () => {
    const p = pipeline();
    await p.reconcile({ spec: A });
    health.breaking.add(B.revision);
    await p.reconcile({ spec: B, assignedAt: 't1', generation: 1 });
    host.calls = [];
    const reports = sink.reports.length;
    expect(
      await p.reconcile({ spec: B, assignedAt: 't1', generation: 1, observedStatus: shown() }),
    ).toMatchObject({
      kind: 'rejected',
      revision: B.revision,
    });
    expect(host.calls).toEqual([
      `netlink.apply ${A.revision.slice(0, 4)}`,
      // Drift repair of the kept config is judged on FRR's running config.
      `frr.sync ${A.revision.slice(0, 4)}`,
    ]);
    expect(sink.reports.length).toBe(reports); // already reported invalid: no new status

    health.breaking.clear();
    expect(await p.reconcile({ spec: B, assignedAt: 't2' })).toMatchObject({ kind: 'provisioned' });
    expect(host.netlinkState).toBe(B.revision);
    expect((await store.load()).rejected).toBeUndefined();
  });

  it('remembers a rejected attempt across restarts', async () => {
    await pipeline().reconcile({ spec: A });
    health.breaking.add(B.revision);
    await pipeline().reconcile({ spec: B, assignedAt: 't1' });
    host.calls = [];
    const fresh = pipeline();
    sink.reports = [];
    expect(await fresh.reconcile({ spec: B, assignedAt: 't1' })).toMatchObject({ kind: 'rejected' });
    expect(host.netlinkState).toBe(A.revision);
    // A fresh process that cannot tell what the API shows re-sends the invalid status.
    expect(sink.reports.map((r) => [r.configStatus, r.reason])).toEqual([['invalid', 'PreviouslyRejected']]);
  });

  it('a netlink failure: FRR is not touched, the host is restored, the message names the netlink step', async () => {
    const p = pipeline();
    await p.reconcile({ spec: A });
    host.failNetlink.add(B.revision);
    host.calls = [];
    const outcome = await p.reconcile({ spec: B });
    expect(outcome).toMatchObject({ kind: 'invalid', step: 'netlink' });
    expect(host.calls).toEqual([
      `netlink.apply ${B.revision.slice(0, 4)}`,
      `netlink.apply ${A.revision.slice(0, 4)}`,
      `frr.apply ${A.revision.slice(0, 4)}`,
    ]);
    expect(host.netlinkState).toBe(A.revision);
    expect(sink.lastReported()?.reason).toBe('NetlinkApplyFailed');
    expect(sink.lastReported()?.message).toMatch(
      /^netlink apply failed: RTNETLINK answers: File exists \(vx\.1002\); restored revision/,
    );
  });

  it('an FRR failure restores both netlink and FRR', async () => {
    const p = pipeline();
    await p.reconcile({ spec: A });
    host.failFrr.add(B.revision);
    const outcome = await p.reconcile({ spec: B });
    expect(outcome).toMatchObject({ kind: 'invalid', step: 'frr' });
    expect([host.netlinkState, host.frrState]).toEqual([A.revision, A.revision]);
    expect(sink.lastReported()?.message).toMatch(
      /^FRR apply failed: vtysh -C: line 12: % Unknown command; restored/,
    );
  });

  it('without a previous checkpoint a failure removes everything managed', async () => {
    const p = pipeline();
    health.breaking.add(A.revision);
    const outcome = await p.reconcile({ spec: A });
    expect(outcome).toMatchObject({ kind: 'invalid', step: 'health', restored: true });
    expect(host.calls.slice(-2)).toEqual(['netlink.removeAll', 'frr.removeAll']);
    expect([host.netlinkState, host.frrState]).toEqual([null, null]);
    expect(sink.lastReported()?.lastAppliedRevision).toBeUndefined();
    expect(sink.lastReported()?.message).toMatch(
      /removed all managed configuration \(no previous checkpoint\)/,
    );
  });

  it('a check already failing before the apply is reported but not held against the new config', async () => {
    health.alwaysFailing.add('dns');
    const outcome = await pipeline().reconcile({ spec: A });
    expect(outcome.kind).toBe('provisioned');
    expect(sink.lastReported()?.message).toMatch(
      /health: already failing before the apply: dns \(timeout\)$/,
    );
  });

  it('a failed status write never rolls back: the new config stays and the write is retried', async () => {
    let attempts = 0;
    const reporter = new StatusReporter({
      write: async () => {
        attempts++;
        throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
      },
      sleep: () => new Promise((r) => setTimeout(r, 1)),
    });
    const p = pipeline({ status: reporter });
    expect((await p.reconcile({ spec: A })).kind).toBe('provisioned');
    expect(host.netlinkState).toBe(A.revision);
    expect((await store.load()).applied?.revision).toBe(A.revision);
    await new Promise((r) => setTimeout(r, 30));
    expect(attempts).toBeGreaterThan(1);
    expect(reporter.lastReported()?.configStatus).toBe('provisioned');
    reporter.stop();
    await reporter.flush();
  });

  it('a checkpoint write failure after a healthy apply counts as a failure of the checkpoint step', async () => {
    const p = pipeline();
    await p.reconcile({ spec: A });
    // Make applied.json impossible to replace: a non-empty directory in its place (works as root too).
    await rm(join(dir, 'applied.json'));
    await mkdir(join(dir, 'applied.json', 'x'), { recursive: true });
    const outcome = await p.reconcile({ spec: B });
    expect(outcome).toMatchObject({ kind: 'invalid', step: 'checkpoint' });
    expect(sink.lastReported()?.reason).toBe('CheckpointWriteFailed');
    expect(sink.lastReported()?.message).toMatch(
      /^checkpoint write failed: cannot write checkpoint .*applied\.json: EISDIR/,
    );
    expect([host.netlinkState, host.frrState]).toEqual([A.revision, A.revision]);
  });

  it('cannot write pending.json: does not touch the host and reports nothing', async () => {
    const p = pipeline();
    await p.start();
    await mkdir(join(dir, 'pending.json', 'x'), { recursive: true });
    const outcome = await p.reconcile({ spec: A });
    expect(outcome).toMatchObject({ kind: 'error' });
    expect(outcome.kind === 'error' && outcome.message).toMatch(
      /^cannot start apply: cannot write checkpoint .*pending\.json/,
    );
    expect(host.calls).toEqual([]);
    expect(sink.reports).toEqual([]);
  });
});

describe('pipeline: unchanged spec (resync)', () => {
  it('repairs drift with no status change', async () => {
    const p = pipeline();
    await p.reconcile({ spec: A });
    const reports = sink.reports.length;
    expect(await p.reconcile({ spec: A, observedStatus: shown() })).toEqual({
      kind: 'unchanged',
      revision: A.revision,
      driftOperations: 0,
      frrChanged: false,
    });
    host.drifted = true; // e.g. vx.1001 deleted by hand
    expect(await p.reconcile({ spec: A, observedStatus: shown() })).toMatchObject({
      kind: 'unchanged',
      driftOperations: 3,
    });
    expect(sink.reports.length).toBe(reports);
    expect(await metric('nodenet_agent_drift_repairs_total')).toEqual([
      'nodenet_agent_drift_repairs_total 1',
    ]);
  });

  it('compares spec content, not only the revision (node labels can change the Layer-2 set)', async () => {
    const p = pipeline();
    await p.reconcile({ spec: A });
    const fewer: NodeConfigSpec = { ...A, layer2: [] };
    expect((await p.reconcile({ spec: fewer })).kind).toBe('provisioned');
  });

  it('re-sends provisioned when the API shows a stale status (rolled back to the applied revision)', async () => {
    await pipeline().reconcile({ spec: A });
    sink.reports = [];
    const fresh = pipeline();
    await fresh.reconcile({
      spec: A,
      observedStatus: { configStatus: 'invalid', lastAppliedRevision: A.revision, message: 'x' },
    });
    expect(sink.reports.map((r) => r.configStatus)).toEqual(['provisioned']);
    sink.reports = [];
    await pipeline().reconcile({
      spec: A,
      observedStatus: { configStatus: 'provisioned', lastAppliedRevision: A.revision },
    });
    expect(sink.reports).toEqual([]);
  });

  it('a failing drift repair is reported in the outcome and metrics, without status change', async () => {
    const p = pipeline();
    await p.reconcile({ spec: A });
    const reports = sink.reports.length;
    host.failNetlink.add(A.revision);
    const outcome = await p.reconcile({ spec: A, observedStatus: shown() });
    expect(outcome).toMatchObject({ kind: 'unchanged', error: 'RTNETLINK answers: File exists (vx.1002)' });
    expect(sink.reports.length).toBe(reports);
    expect(await metric('nodenet_agent_drift_repair_errors_total')).toEqual([
      'nodenet_agent_drift_repair_errors_total 1',
    ]);
  });

  it('calls the first-healthy hook (taint removal) once, retrying until it succeeds', async () => {
    let calls = 0;
    const p = pipeline({
      onFirstHealthy: async () => {
        calls++;
        if (calls === 1) throw new Error('API down');
      },
    });
    await p.reconcile({ spec: A });
    await p.reconcile({ spec: A });
    await p.reconcile({ spec: A });
    expect(calls).toBe(2);
  });
  it('never tears down the host on a resync when there is no checkpoint (e.g. it was corrupt)', async () => {
    const p = pipeline();
    health.breaking.add(A.revision);
    await p.reconcile({ spec: A, assignedAt: 't1' }); // rejected, host emptied by the restore
    host.netlinkState = 'devices-made-by-someone-else';
    host.calls = [];
    expect(await p.reconcile({ spec: A, assignedAt: 't1' })).toMatchObject({ kind: 'rejected' });
    expect(host.calls).toEqual([]);
    expect(host.netlinkState).toBe('devices-made-by-someone-else');
  });
});

describe('pipeline: start-up', () => {
  it('an apply cut off mid-way: restores applied.json, reports the attempted revision invalid, and does not retry it', async () => {
    await pipeline().reconcile({ spec: A });
    // The state a SIGKILL after the netlink step leaves behind.
    await store.savePending({
      revision: B.revision,
      specHash: specHash(B),
      assignedAt: 't1',
      generation: 7,
      startedAt: 'x',
    });
    host.netlinkState = B.revision;
    host.calls = [];
    sink.reports = [];
    const p = pipeline();
    const outcome = await p.start();
    expect(outcome).toMatchObject({
      kind: 'recovered',
      attempted: B.revision,
      restoredTo: A.revision,
      restored: true,
    });
    expect([host.netlinkState, host.frrState]).toEqual([A.revision, A.revision]);
    expect(sink.reports).toHaveLength(1);
    expect(sink.reports[0]).toMatchObject({
      configStatus: 'invalid',
      revision: B.revision,
      lastAppliedRevision: A.revision,
      reason: 'AgentRestartedDuringApply',
      observedGeneration: 7, // answers the generation the cut-off apply was for
    });
    expect(sink.reports[0]?.message).toBe(
      `agent restarted during apply of revision ${B.revision.slice(0, 10)}; restored revision ${A.revision.slice(0, 10)}; ` +
        'health after restore: all 2 checks passed',
    );
    expect((await store.load()).pending).toBeUndefined();
    host.calls = [];
    expect(await p.reconcile({ spec: B, assignedAt: 't1' })).toMatchObject({ kind: 'rejected' });
    expect(host.netlinkState).toBe(A.revision);
    expect(await metric('nodenet_agent_restores_total')).toEqual([
      'nodenet_agent_restores_total{cause="restarted",result="ok"} 1',
    ]);
  });

  it('an apply cut off with no checkpoint removes everything managed', async () => {
    await store.savePending({ revision: A.revision, specHash: specHash(A), startedAt: 'x' });
    host.netlinkState = A.revision;
    const outcome = await pipeline().start();
    expect(outcome).toMatchObject({ kind: 'recovered', restored: true });
    expect(host.calls).toEqual(['netlink.removeAll', 'frr.removeAll']);
    expect(sink.lastReported()?.message).toMatch(
      /removed all managed configuration \(no previous checkpoint\)/,
    );
  });

  it('pending.json left behind after applied.json was written: the apply had completed, no restore', async () => {
    await pipeline().reconcile({ spec: A });
    await store.savePending({ revision: A.revision, specHash: specHash(A), startedAt: 'x' });
    host.calls = [];
    expect(await pipeline().start()).toEqual({ kind: 'completed', applied: A.revision });
    expect(host.calls).toEqual([]);
    expect((await store.load()).pending).toBeUndefined();
  });

  it('a corrupt applied.json: reported, moved aside, treated as no checkpoint — the agent keeps going', async () => {
    await pipeline().reconcile({ spec: A });
    await writeFile(join(dir, 'applied.json'), '{"version":1,"checksum":"');
    const p = pipeline();
    expect(await p.start()).toEqual({ kind: 'clean', applied: undefined });
    expect(await metric('nodenet_agent_checkpoint_corrupt_total')).toEqual([
      'nodenet_agent_checkpoint_corrupt_total{file="applied.json"} 1',
    ]);
    // Same spec, but with no checkpoint it is a new apply that writes a fresh checkpoint.
    expect((await p.reconcile({ spec: A })).kind).toBe('provisioned');
    expect((await store.load()).applied?.revision).toBe(A.revision);
  });

  it('the restored spec cannot be rendered for FRR (a template vtysh refuses): the FRR file from before the change is put back, and the restore counts (issue 35 case 6)', async () => {
    const p = pipeline();
    await p.reconcile({ spec: A });
    health.breaking.add(B.revision);
    host.failFrr.add(A.revision); // from now on: A's config no longer renders
    const outcome = await p.reconcile({ spec: B, assignedAt: 't1' });
    expect(outcome).toMatchObject({ kind: 'invalid', step: 'health', restored: true });
    expect([host.netlinkState, host.frrState]).toEqual([A.revision, A.revision]);
    expect(host.calls.slice(-2)).toEqual([
      `frr.apply ${A.revision.slice(0, 4)}`,
      `frr.restoreFile ${A.revision.slice(0, 4)}`,
    ]);
    expect(sink.lastReported()).toMatchObject({ lastAppliedRevision: A.revision });
    expect(sink.lastReported()).not.toHaveProperty('failureCause', 'RestoreFailed');
  });

  it('the restored spec cannot be rendered for FRR and the FRR file is not the one from before the change: RestoreFailed names it', async () => {
    const p = pipeline();
    await p.reconcile({ spec: A });
    health.breaking.add(B.revision);
    host.failFrr.add(A.revision);
    host.beforeNetlinkApply = async () => void (host.frrPrevious = 'edited by hand');
    await p.reconcile({ spec: B, assignedAt: 't1' });
    expect(sink.lastReported()).toMatchObject({ failureCause: 'RestoreFailed' });
    expect(sink.lastReported()?.message).toMatch(
      /restore FAILED \(FRR: vtysh -C: line 12: % Unknown command; the file FRR ran before the change not put back either: neither file is the one FRR ran before the change\)/,
    );
  });

  it('a corrupt pending.json: restores (revision unknown) without reporting a revision it cannot name', async () => {
    await pipeline().reconcile({ spec: A });
    await writeFile(join(dir, 'pending.json'), 'garbage');
    sink.reports = [];
    const outcome = await pipeline().start();
    expect(outcome).toMatchObject({ kind: 'recovered', attempted: undefined, restored: true });
    expect(outcome.kind === 'recovered' && outcome.message).toMatch(
      /unknown revision \(pending checkpoint unreadable\)/,
    );
    expect(sink.reports).toEqual([]);
  });

  it('a restore that fails keeps pending.json and is retried before the next apply', async () => {
    await store.savePending({ revision: A.revision, specHash: specHash(A), startedAt: 'x' });
    host.netlinkState = A.revision;
    host.failRemoveAll = true;
    const p = pipeline();
    expect(await p.start()).toMatchObject({ kind: 'recovered', restored: false });
    expect(sink.lastReported()?.message).toMatch(/restore FAILED \(netlink: EBUSY\)/);
    expect((await store.load()).pending?.revision).toBe(A.revision);
    expect(await p.reconcile({ spec: C })).toEqual({
      kind: 'error',
      message: 'restore of the last good checkpoint is still failing',
    });
    host.failRemoveAll = false;
    expect((await p.reconcile({ spec: C })).kind).toBe('provisioned');
    expect(host.netlinkState).toBe(C.revision);
  });
});

describe('nextStep', () => {
  const hash = 'h-new';
  it.each([
    [
      'a failed restore comes first',
      { recoveryNeeded: true, desiredHash: hash, appliedHash: hash },
      'recover-first',
    ],
    ['the applied spec: resync', { recoveryNeeded: false, desiredHash: hash, appliedHash: hash }, 'resync'],
    [
      'rejected under the same assignment: keep rejected',
      {
        recoveryNeeded: false,
        desiredHash: hash,
        assignedAt: 't1',
        appliedHash: 'h-old',
        rejected: { specHash: hash, assignedAt: 't1' },
      },
      'keep-rejected',
    ],
    [
      're-assigned (retry): apply again',
      {
        recoveryNeeded: false,
        desiredHash: hash,
        assignedAt: 't2',
        appliedHash: 'h-old',
        rejected: { specHash: hash, assignedAt: 't1' },
      },
      'apply',
    ],
    [
      'another spec was rejected: apply',
      { recoveryNeeded: false, desiredHash: hash, appliedHash: 'h-old', rejected: { specHash: 'h-bad' } },
      'apply',
    ],
    ['no checkpoint at all: apply', { recoveryNeeded: false, desiredHash: hash }, 'apply'],
    [
      'interrupted under the same assignment (e.g. SIGTERM in a rollback window): apply again',
      {
        recoveryNeeded: false,
        desiredHash: hash,
        assignedAt: 't1',
        rejected: { specHash: hash, assignedAt: 't1', failureCause: 'Interrupted', interruptions: 2 },
      },
      'apply',
    ],
    [
      'interrupted 3 times in a row: keep rejected until re-assigned',
      {
        recoveryNeeded: false,
        desiredHash: hash,
        assignedAt: 't1',
        rejected: { specHash: hash, assignedAt: 't1', failureCause: 'Interrupted', interruptions: 3 },
      },
      'keep-rejected',
    ],
  ] as const)('%s', (_name, facts, expected) => {
    expect(nextStep(facts)).toBe(expected);
  });
});

describe('pipeline: confirm window', () => {
  let mono: number;
  let onSleep: (() => Promise<void> | void) | undefined;
  let apiDown: boolean;
  const windowed = (extra: Partial<ConstructorParameters<typeof Pipeline>[0]> = {}) =>
    pipeline({
      confirm: { windowMs: 30_000, intervalMs: 5_000, unreachableLimitMs: 10_000 },
      monotonicMs: () => mono,
      sleep: async (ms) => {
        mono += ms;
        await onSleep?.();
      },
      apiServer: async () => {
        if (apiDown) throw new Error('connect ETIMEDOUT 10.255.0.1:6443');
      },
      ...extra,
    });
  beforeEach(() => {
    mono = 0;
    onSleep = undefined;
    apiDown = false;
  });

  it('keeps pending.json and reports Confirming through the window, then writes applied.json and reports provisioned', async () => {
    const p = windowed();
    await p.reconcile({ spec: A });
    const seen: string[][] = [];
    onSleep = async () => void seen.push((await readdir(dir)).sort());
    sink.reports = [];
    expect((await p.reconcile({ spec: B })).kind).toBe('provisioned');
    expect(seen).toHaveLength(6); // 30 s / 5 s
    for (const files of seen) expect(files).toEqual(['applied.json', 'pending.json']);
    expect((await store.load()).applied?.revision).toBe(B.revision);
    expect(await readdir(dir)).toEqual(['applied.json']);
    expect(sink.reports.map((r) => [r.configStatus, r.reason, r.confirming ?? false])).toEqual([
      ['provisioning', 'Applying', false],
      ['provisioning', 'Confirming', true],
      ['provisioned', 'Provisioned', false],
    ]);
    expect(sink.reports[1]?.message).toMatch(/confirming for 30 s/);
    expect(
      buildStatus(sink.reports[1]!, new Date()).conditions?.find((c) => c.type === 'Confirming')?.status,
    ).toBe('True');
  });

  it('a revision that changes nothing on the host (0 netlink operations, FRR unchanged) reports provisioned at once, without a window', async () => {
    // The host holds what a spec says, whatever its revision: B2 is A under another revision.
    host.contentOf = (s) => JSON.stringify({ ...s, revision: '' });
    const p = windowed();
    await p.reconcile({ spec: A });
    const A2 = { ...A, revision: 'a2'.repeat(32) };
    let slept = 0;
    onSleep = () => void slept++;
    sink.reports = [];
    expect((await p.reconcile({ spec: A2 })).kind).toBe('provisioned');
    expect(slept).toBe(0);
    expect(sink.reports.map((r) => [r.configStatus, r.reason, r.confirming ?? false])).toEqual([
      ['provisioning', 'Applying', false],
      ['provisioned', 'Provisioned', false],
    ]);
    expect((await store.load()).applied?.revision).toBe(A2.revision);
    // A revision that does change the host still walks the window.
    sink.reports = [];
    expect((await p.reconcile({ spec: B })).kind).toBe('provisioned');
    expect(slept).toBe(6);
    expect(sink.reports.some((r) => r.confirming)).toBe(true);
  });

  it('a check that fails within the window: restores the previous revision by itself and says when', async () => {
    const p = windowed();
    await p.reconcile({ spec: A });
    let rounds = 0;
    onSleep = () => {
      if (++rounds === 3) health.breaking.add(B.revision); // e.g. the BGP session died at hold-timer expiry
    };
    const outcome = await p.reconcile({ spec: B, assignedAt: 't1' });
    expect(outcome).toMatchObject({ kind: 'invalid', step: 'confirm', restored: true });
    expect([host.netlinkState, host.frrState]).toEqual([A.revision, A.revision]);
    expect(sink.lastReported()).toMatchObject({
      configStatus: 'invalid',
      revision: B.revision,
      lastAppliedRevision: A.revision,
      reason: 'ConfirmHealthCheckFailed',
    });
    expect(sink.lastReported()?.message).toBe(
      `health check failed 15 s after apply: tcp/spine-1 (no answer within 3000 ms after 3 attempt(s)); ` +
        `restored revision ${A.revision.slice(0, 10)}; health after restore: all 2 checks passed`,
    );
    expect((await store.load()).applied?.revision).toBe(A.revision);
    expect((await store.load()).rejected).toMatchObject({ revision: B.revision, assignedAt: 't1' });
    expect(await readdir(dir)).not.toContain('pending.json');
  });

  it('the API server unreachable longer than the limit: reverts, and reports once it is back', async () => {
    const p = windowed();
    await p.reconcile({ spec: A });
    let rounds = 0;
    onSleep = () => {
      if (++rounds === 2) apiDown = true;
    };
    const outcome = await p.reconcile({ spec: B });
    expect(outcome).toMatchObject({ kind: 'invalid', step: 'confirm', restored: true });
    expect(sink.lastReported()?.reason).toBe('ConfirmApiServerUnreachable');
    expect(sink.lastReported()?.message).toMatch(
      new RegExp(
        `^API server unreachable 10 s after apply, for 10 s \\(connect ETIMEDOUT 10.255.0.1:6443\\); restored revision ${A.revision.slice(0, 10)}`,
      ),
    );
    expect(host.netlinkState).toBe(A.revision);
  });

  it('a short API server outage within the limit does not revert', async () => {
    const p = windowed();
    await p.reconcile({ spec: A });
    let rounds = 0;
    onSleep = () => {
      rounds++;
      apiDown = rounds === 2 || rounds === 3; // 5 s < 10 s limit
    };
    expect((await p.reconcile({ spec: B })).kind).toBe('provisioned');
  });

  it('stop() (SIGTERM) during the window restores before the apply returns', async () => {
    const p = windowed({
      sleep: async (ms, signal) => {
        mono += ms;
        p.stop();
        expect(signal.aborted).toBe(true);
      },
    });
    await pipeline().reconcile({ spec: A });
    const outcome = await p.reconcile({ spec: B });
    expect(outcome).toMatchObject({ kind: 'invalid', step: 'confirm', restored: true });
    expect(sink.lastReported()?.reason).toBe('AgentStoppedDuringConfirm');
    expect(host.netlinkState).toBe(A.revision);
  });

  it('a kill during the window is recovered at start-up like one during the apply', async () => {
    await windowed().reconcile({ spec: A });
    // The "kill": the window never returns; the process is gone with pending.json on disk.
    const killed = windowed({ sleep: () => new Promise(() => undefined) });
    void killed.reconcile({ spec: B, assignedAt: 't1', generation: 2 });
    await vi.waitFor(async () => expect(sink.lastReported()?.confirming).toBe(true));
    expect(await readdir(dir)).toContain('pending.json');
    sink.reports = [];
    const restarted = windowed();
    expect(await restarted.start()).toMatchObject({
      kind: 'recovered',
      attempted: B.revision,
      restored: true,
    });
    expect(host.netlinkState).toBe(A.revision);
    expect(sink.lastReported()).toMatchObject({
      configStatus: 'invalid',
      reason: 'AgentRestartedDuringApply',
      // The checks had passed (pending.json says so): not the change's fault.
      failureCause: 'Interrupted',
      lastAppliedRevision: A.revision,
    });
    expect(sink.lastReported()?.message).toMatch(/^agent restarted during the confirm window of revision /);
    // Interrupted: the same assignment is tried again on its own (bounded, see below).
    expect((await restarted.reconcile({ spec: B, assignedAt: 't1', generation: 2 })).kind).toBe(
      'provisioned',
    );
  });

  it('a kill before the window (mid-apply) is ChangeFailed: the change may have been what crashed it', async () => {
    await windowed().reconcile({ spec: A });
    host.beforeNetlinkApply = () => new Promise(() => undefined); // "killed" inside the netlink step
    void windowed().reconcile({ spec: B, assignedAt: 't1', generation: 2 });
    await vi.waitFor(async () => expect(await readdir(dir)).toContain('pending.json'));
    host.beforeNetlinkApply = undefined;
    const restarted = windowed();
    await restarted.start();
    expect(sink.lastReported()).toMatchObject({
      reason: 'AgentRestartedDuringApply',
      failureCause: 'ChangeFailed',
    });
    expect((await restarted.reconcile({ spec: B, assignedAt: 't1', generation: 2 })).kind).toBe('rejected');
  });
});

describe('pipeline: report kinds (status.failureCause)', () => {
  let mono: number;
  let apiAnswers: () => boolean;
  const windowed = (extra: Partial<ConstructorParameters<typeof Pipeline>[0]> = {}) =>
    pipeline({
      confirm: { windowMs: 30_000, intervalMs: 5_000, unreachableLimitMs: 10_000 },
      monotonicMs: () => mono,
      sleep: async (ms) => {
        mono += ms;
      },
      apiServer: async () => {
        if (!apiAnswers()) throw new Error('no answer from 10.255.0.1:6443 within 1000 ms');
      },
      ...extra,
    });
  beforeEach(() => {
    mono = 0;
    apiAnswers = () => true;
  });
  const last = () => sink.lastReported();

  it('a check broken by the change: ChangeFailed, the restored revision claimed; kept rejected', async () => {
    const p = windowed();
    await p.reconcile({ spec: A });
    health.breaking.add(B.revision);
    await p.reconcile({ spec: B, assignedAt: 't1' });
    expect(last()).toMatchObject({ failureCause: 'ChangeFailed', lastAppliedRevision: A.revision });
    expect(buildStatus(last()!, new Date()).failureCause).toBe('ChangeFailed');
    expect((await p.reconcile({ spec: B, assignedAt: 't1' })).kind).toBe('rejected');
  });

  it('the change cuts the node off (the API answers again right after the restore): ChangeFailed', async () => {
    const p = windowed();
    await p.reconcile({ spec: A });
    apiAnswers = () => host.netlinkState !== B.revision;
    await p.reconcile({ spec: B, assignedAt: 't1' });
    expect(last()).toMatchObject({
      reason: 'ConfirmApiServerUnreachable',
      failureCause: 'ChangeFailed',
      lastAppliedRevision: A.revision,
    });
    expect(last()?.message).toMatch(
      /; the API server answered 0 s after the restore: the change cut the node off$/,
    );
    expect((await p.reconcile({ spec: B, assignedAt: 't1' })).kind).toBe('rejected');
  });

  it('the control plane is down (still no answer well after the restore): Interrupted, tried again on its own', async () => {
    const p = windowed();
    await p.reconcile({ spec: A });
    let down = true;
    apiAnswers = () => mono < 5000 || !down; // lost 5 s into the window, for good
    await p.reconcile({ spec: B, assignedAt: 't1' });
    expect(last()).toMatchObject({
      reason: 'ConfirmApiServerUnreachable',
      failureCause: 'Interrupted',
      lastAppliedRevision: A.revision,
    });
    expect(last()?.message).toMatch(
      /; the API server still did not answer 5 s after the restore \(no answer from 10\.255\.0\.1:6443 within 1000 ms\): an outage, not the change$/,
    );
    expect((await store.load()).rejected).toMatchObject({ failureCause: 'Interrupted', interruptions: 1 });
    // Not tried again while the API server still does not answer (a resync mid-outage).
    expect((await p.reconcile({ spec: B, assignedAt: 't1' })).kind).toBe('rejected');
    expect(host.netlinkState).toBe(A.revision);
    down = false;
    expect((await p.reconcile({ spec: B, assignedAt: 't1' })).kind).toBe('provisioned');
    expect(last()).toMatchObject({ configStatus: 'provisioned', lastAppliedRevision: B.revision });
    expect(buildStatus(last()!, new Date()).failureCause).toBeUndefined();
  });

  it('SIGTERM in the window: Interrupted (no API probe needed)', async () => {
    const p = windowed({ sleep: async (ms) => void ((mono += ms), p.stop()) });
    await pipeline().reconcile({ spec: A });
    await p.reconcile({ spec: B, assignedAt: 't1' });
    expect(last()).toMatchObject({ reason: 'AgentStoppedDuringConfirm', failureCause: 'Interrupted' });
  });

  it('interruptions of one assignment are retried at most 3 times in a row, then wait for a re-assignment', async () => {
    await windowed().reconcile({ spec: A });
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      const p = windowed({ sleep: async (ms) => void ((mono += ms), p.stop()) });
      await p.start();
      outcomes.push((await p.reconcile({ spec: B, assignedAt: 't1' })).kind);
    }
    expect(outcomes).toEqual(['invalid', 'invalid', 'invalid', 'rejected']);
    expect((await store.load()).rejected).toMatchObject({ interruptions: 3 });
    expect((await windowed().reconcile({ spec: B, assignedAt: 't2' })).kind).toBe('provisioned');
  });

  it('the restore fails: RestoreFailed, no lastAppliedRevision claim, NodenetReady=False/RestoreFailed', async () => {
    const p = windowed();
    await p.reconcile({ spec: A });
    host.failFrr.add(B.revision);
    host.failNetlink.add(A.revision); // the restore of A fails too
    const outcome = await p.reconcile({ spec: B, assignedAt: 't1' });
    expect(outcome).toMatchObject({ kind: 'invalid', restored: false });
    expect(last()).toMatchObject({ configStatus: 'invalid', failureCause: 'RestoreFailed' });
    expect(last()).not.toHaveProperty('lastAppliedRevision');
    const status = buildStatus(last()!, new Date());
    expect(status.failureCause).toBe('RestoreFailed');
    expect(status.lastAppliedRevision).toBeUndefined();
    expect(decideNodenetReady({ outcome: outcome as never })).toMatchObject({
      status: 'False',
      reason: 'RestoreFailed',
    });
    expect(await readdir(dir)).toContain('pending.json');
  });

  it('the netlink restore fails: what the change added is still removed (it needs the restored spec alone), and the message says so (issue 35 case 6)', async () => {
    const p = windowed();
    await p.reconcile({ spec: A });
    host.failFrr.add(B.revision);
    host.failNetlink.add(A.revision);
    await p.reconcile({ spec: B, assignedAt: 't1' });
    expect(host.calls.slice(-3)).toEqual([
      `netlink.apply ${A.revision.slice(0, 4)}`,
      `netlink.removeAdded ${A.revision.slice(0, 4)}`,
      `frr.apply ${A.revision.slice(0, 4)}`,
    ]);
    expect(last()).toMatchObject({ failureCause: 'RestoreFailed' });
    expect(last()?.message).toMatch(
      /restore FAILED \(netlink: the devices of revision [0-9a-f]{10} not put back \(RTNETLINK answers: File exists \(vx\.1002\)\); removed what the change added \(added\)\)/,
    );
  });

  it('a rollback interrupted by SIGTERM (previous = the invalid revision): restored to it, Interrupted, and retried — the node ends on the rolled-back revision', async () => {
    // The node is on B, which turned out invalid elsewhere; the configurator rolls it back to A.
    await windowed().reconcile({ spec: B });
    const terminated = windowed({ sleep: async (ms) => void ((mono += ms), terminated.stop()) });
    await terminated.reconcile({ spec: A, assignedAt: 'rollback-1' });
    expect(host.netlinkState).toBe(B.revision);
    expect(last()).toMatchObject({
      revision: A.revision,
      failureCause: 'Interrupted',
      lastAppliedRevision: B.revision,
    });
    // A new agent (DaemonSet update): the same assignment is not kept rejected.
    const next = windowed();
    await next.start();
    expect((await next.reconcile({ spec: A, assignedAt: 'rollback-1' })).kind).toBe('provisioned');
    expect(host.netlinkState).toBe(A.revision);
  });
});

describe('pipeline: status contract', () => {
  it('re-reports provisioned when the NodeConfig in the API has no status (re-created), though it reported before', async () => {
    const p = pipeline();
    await p.reconcile({ spec: A, generation: 1 });
    const inApi = shown();
    const first = sink.reports.length;
    await p.reconcile({ spec: A, generation: 1, observedStatus: inApi });
    expect(sink.reports.length).toBe(first); // the API shows it: nothing to say
    await p.reconcile({ spec: A, generation: 1, observedStatus: undefined }); // kubectl delete nc; re-created
    expect(sink.reports.slice(first).map((r) => [r.configStatus, r.revision, r.message])).toEqual([
      ['provisioned', A.revision, `revision ${A.revision.slice(0, 10)} applied; health: all 2 checks passed`],
    ]);
  });

  it('re-reports invalid for a rejected attempt when the status was wiped', async () => {
    const p = pipeline();
    await p.reconcile({ spec: A });
    health.breaking.add(B.revision);
    await p.reconcile({ spec: B, assignedAt: 't1', generation: 3 });
    sink.reports = [];
    await p.reconcile({ spec: B, assignedAt: 't1', generation: 3, observedStatus: {} });
    expect(sink.reports.map((r) => [r.configStatus, r.reason])).toEqual([['invalid', 'PreviouslyRejected']]);
  });

  it('a report still waiting in the sink is not repeated', async () => {
    const p = pipeline();
    await p.reconcile({ spec: A });
    sink.busy = true;
    sink.reports = [...sink.reports];
    const before = sink.reports.length;
    await p.reconcile({ spec: A });
    expect(sink.reports.length).toBe(before);
  });

  it('heartbeats while a slow apply runs, and stops afterwards', async () => {
    const p = pipeline({ heartbeatMs: 5 });
    host.beforeNetlinkApply = () =>
      vi.waitFor(() => expect(sink.heartbeats).toBeGreaterThanOrEqual(3), { timeout: 5000 });
    expect((await p.reconcile({ spec: A })).kind).toBe('provisioned');
    const after = sink.heartbeats;
    await new Promise((r) => setTimeout(r, 50));
    expect(sink.heartbeats).toBe(after);
  });

  it('crash window: rejected.json is on disk before pending.json goes, so a restart never re-applies the bad spec', async () => {
    await pipeline().reconcile({ spec: A });
    health.breaking.add(B.revision);
    let filesAtFault: string[] = [];
    const p = pipeline({
      fault: (point) => {
        if (point === 'after-rejected') filesAtFault = readdirSync(dir).sort();
      },
    });
    await p.reconcile({ spec: B, assignedAt: 't1' });
    expect(filesAtFault).toEqual(['applied.json', 'pending.json', 'rejected.json']);
    // Had it died there: start-up restores (again) and the bad spec stays rejected.
    await store.savePending({
      revision: B.revision,
      specHash: specHash(B),
      assignedAt: 't1',
      startedAt: 'x',
    });
    host.calls = [];
    const restarted = pipeline();
    expect((await restarted.start()).kind).toBe('recovered');
    expect((await restarted.reconcile({ spec: B, assignedAt: 't1' })).kind).toBe('rejected');
    expect(host.calls.filter((c) => c.includes(B.revision.slice(0, 4)))).toEqual([]);
  });
});
