import { REVISION_NUMBER_LABEL, type NodeConfig, type NodeConfigStatus } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { buildStatus, StatusReporter, type StatusReport } from '@nodenet/agent';

const t0 = new Date('2025-01-01T00:00:00Z');
const t1 = new Date('2025-01-01T00:01:00Z');
const rev = 'a'.repeat(64);
const provisioning: StatusReport = {
  configStatus: 'provisioning',
  revision: rev,
  reason: 'Applying',
  message: 'applying',
};
const provisioned: StatusReport = {
  configStatus: 'provisioned',
  revision: rev,
  lastAppliedRevision: rev,
  reason: 'Provisioned',
  message: 'ok',
  observedGeneration: 3,
};

describe('buildStatus', () => {
  it('sets configStatus, lastUpdate, lastAppliedRevision, message and the four conditions', () => {
    const status = buildStatus(provisioned, t0);
    expect(status).toEqual({
      configStatus: 'provisioned',
      lastUpdate: '2025-01-01T00:00:00.000Z',
      lastAppliedRevision: rev,
      message: 'ok',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Provisioned',
          message: 'ok',
          lastTransitionTime: t0.toISOString(),
          observedGeneration: 3,
        },
        {
          type: 'Progressing',
          status: 'False',
          reason: 'Provisioned',
          message: 'ok',
          lastTransitionTime: t0.toISOString(),
          observedGeneration: 3,
        },
        {
          type: 'Confirming',
          status: 'False',
          reason: 'Provisioned',
          message: 'ok',
          lastTransitionTime: t0.toISOString(),
          observedGeneration: 3,
        },
        {
          type: 'Invalid',
          status: 'False',
          reason: 'Provisioned',
          message: 'ok',
          lastTransitionTime: t0.toISOString(),
          observedGeneration: 3,
        },
      ],
    });
  });

  it('keeps lastTransitionTime of conditions whose status did not change', () => {
    const first = buildStatus(provisioning, t0);
    const second = buildStatus(
      { ...provisioning, configStatus: 'invalid', reason: 'HealthCheckFailed' },
      t1,
      first.conditions,
    );
    const byType = Object.fromEntries((second.conditions ?? []).map((c) => [c.type, c]));
    expect(byType.Ready?.lastTransitionTime).toBe(t0.toISOString()); // False → False
    expect(byType.Progressing?.lastTransitionTime).toBe(t1.toISOString()); // True → False
    expect(byType.Invalid?.lastTransitionTime).toBe(t1.toISOString()); // False → True
    expect(byType.Invalid?.reason).toBe('HealthCheckFailed');
  });
});

describe('StatusReporter', () => {
  it('writes a report, retrying failures with backoff until the API answers', async () => {
    const written: NodeConfigStatus[] = [];
    const delays: number[] = [];
    let failures = 3;
    const reporter = new StatusReporter({
      now: () => t0,
      write: async (status) => {
        if (failures-- > 0) throw new Error('ECONNREFUSED');
        written.push(status);
      },
      sleep: async (ms) => void delays.push(ms),
      backoff: { initialMs: 100, maxMs: 250, factor: 2 },
    });
    reporter.report(provisioned);
    await reporter.flush();
    expect(delays).toEqual([100, 200, 250]);
    expect(written.map((s) => s.configStatus)).toEqual(['provisioned']);
    expect(reporter.busy).toBe(false);
  });

  it('a newer report supersedes one not yet written: only the latest state is sent', async () => {
    const written: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let first = true;
    const reporter = new StatusReporter({
      write: async (status) => {
        if (first) {
          first = false;
          await gate;
          throw new Error('timeout');
        }
        written.push(status.configStatus ?? '');
      },
      sleep: async () => undefined,
    });
    reporter.report(provisioning);
    reporter.report({ ...provisioning, configStatus: 'invalid', reason: 'HealthCheckFailed' });
    reporter.report(provisioned);
    release();
    await reporter.flush();
    expect(written).toEqual(['provisioned']);
    expect(reporter.lastReported()).toBe(provisioned);
  });

  it('reports write errors with the attempt number and the next delay', async () => {
    const seen: [string, number, number][] = [];
    let n = 0;
    const reporter = new StatusReporter({
      write: async () => {
        if (n++ < 2) throw new Error(`boom ${n}`);
      },
      sleep: async () => undefined,
      backoff: { initialMs: 10, maxMs: 100, factor: 3 },
      onWriteError: (err, attempt, delay) => seen.push([(err as Error).message, attempt, delay]),
    });
    reporter.report(provisioned);
    await reporter.flush();
    expect(seen).toEqual([
      ['boom 1', 1, 10],
      ['boom 2', 2, 30],
    ]);
  });

  it('stop() ends the retry loop', async () => {
    let attempts = 0;
    const reporter = new StatusReporter({
      write: async () => {
        attempts++;
        throw new Error('down');
      },
      backoff: { initialMs: 60_000, maxMs: 60_000, factor: 1 },
    });
    reporter.report(provisioned);
    await new Promise((r) => setTimeout(r, 10));
    reporter.stop();
    await reporter.flush();
    expect(attempts).toBe(1);
    expect(reporter.busy).toBe(true); // never written, and says so
  });

  it('seeds conditions from the stored status so transition times survive a restart', () => {
    const stored = buildStatus(provisioned, t0);
    const written: NodeConfigStatus[] = [];
    const reporter = new StatusReporter({ now: () => t1, write: async (s) => void written.push(s) });
    reporter.seed(stored);
    reporter.report({ ...provisioned, message: 'still fine' });
    return reporter.flush().then(() => {
      expect(written[0]?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime).toBe(
        t0.toISOString(),
      );
    });
  });
});

describe('StatusReporter heartbeat', () => {
  it('re-writes the newest report with a fresh lastUpdate, keeping the Confirming transition time', async () => {
    let now = t0;
    const written: NodeConfigStatus[] = [];
    const reporter = new StatusReporter({ now: () => now, write: async (s) => void written.push(s) });
    reporter.report({ ...provisioned, configStatus: 'provisioning', confirming: true, reason: 'Confirming' });
    await reporter.flush();
    now = new Date(t0.getTime() + 10_000);
    reporter.heartbeat();
    await reporter.flush();
    expect(written.map((s) => s.lastUpdate)).toEqual([t0.toISOString(), now.toISOString()]);
    const confirming = written[1]?.conditions?.find((c) => c.type === 'Confirming');
    expect(confirming).toMatchObject({ status: 'True', lastTransitionTime: t0.toISOString() });
  });

  it('is a no-op while a write is pending or retrying (no write storm), and before any report', async () => {
    const attempts: string[] = [];
    let release!: () => void;
    const reporter = new StatusReporter({
      now: () => t0,
      write: (s) => {
        attempts.push(s.configStatus ?? '');
        return new Promise<void>((r) => (release = r));
      },
    });
    reporter.heartbeat();
    expect(attempts).toEqual([]);
    reporter.report(provisioned);
    await Promise.resolve();
    for (let i = 0; i < 5; i++) reporter.heartbeat();
    release();
    await reporter.flush();
    expect(attempts).toEqual(['provisioned']);
  });
});

describe('StatusReporter with a liveness Lease (issue 40)', () => {
  const withLease = () => {
    const written: NodeConfigStatus[] = [];
    const renewed: (string | undefined)[] = [];
    const reporter = new StatusReporter({
      now: () => t0,
      write: async (s) => void written.push(s),
      liveness: { renew: (owner) => void renewed.push(owner?.uid) },
    });
    reporter.observe({
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'NodeConfig',
      metadata: { name: 'node-1', uid: 'uid-1' },
      spec: { revision: rev, vrf: [], layer2: [], routingTable: [] },
    });
    return { written, renewed, reporter };
  };

  it('writes provisioning once per change: an Applying report is held and replaced by Confirming', async () => {
    const { written, renewed, reporter } = withLease();
    reporter.report(provisioning);
    expect(reporter.busy).toBe(true);
    reporter.report({ ...provisioning, confirming: true, reason: 'Confirming' });
    await reporter.flush();
    reporter.heartbeat();
    reporter.report(provisioned);
    await reporter.flush();
    expect(
      written.map((s) => `${s.configStatus}/${s.conditions?.find((c) => c.status === 'True')?.type}`),
    ).toEqual(['provisioning/Progressing', 'provisioned/Ready']);
    expect(written[0]?.conditions?.find((c) => c.type === 'Confirming')?.status).toBe('True');
    // The beat in the window renewed the Lease, owned by the NodeConfig; it wrote no status.
    expect(renewed).toEqual(['uid-1']);
  });

  it('a held Applying report is written by the first heartbeat (a slow apply), later beats renew the Lease', async () => {
    const { written, renewed, reporter } = withLease();
    reporter.report(provisioning);
    await reporter.flush();
    expect(written).toEqual([]);
    reporter.heartbeat();
    await reporter.flush();
    expect(written.map((s) => s.configStatus)).toEqual(['provisioning']);
    expect(renewed).toEqual([]);
    reporter.heartbeat();
    reporter.heartbeat();
    expect(written).toHaveLength(1);
    expect(renewed).toEqual(['uid-1', 'uid-1']);
  });

  it('writes a terminal report at once, holding nothing', async () => {
    const { written, reporter } = withLease();
    reporter.report({ ...provisioned, configStatus: 'invalid', reason: 'HealthCheckFailed' });
    await reporter.flush();
    expect(written.map((s) => s.configStatus)).toEqual(['invalid']);
  });
});

describe('StatusReporter names the revision numbers (docs/agent-status.md)', () => {
  const revB = 'b'.repeat(64);
  const nodeConfig = (
    generation: number,
    revision: string,
    number: number,
    status?: NodeConfigStatus,
  ): NodeConfig => ({
    apiVersion: 'network.nodenet.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: { name: 'n', generation, labels: { [REVISION_NUMBER_LABEL]: String(number) } },
    spec: { revision, vrf: [], layer2: [], routingTable: [] },
    ...(status ? { status } : {}),
  });
  const numbers = (s: NodeConfigStatus | undefined) => ({
    answered: s?.revisionNumber,
    applied: s?.appliedRevisionNumber,
  });
  const reporterWriting = (written: NodeConfigStatus[]) =>
    new StatusReporter({ now: () => t0, write: async (s) => void written.push(s) });

  it('the number its report answers, and the number on the host (the previous one until provisioned, the restored one when invalid)', async () => {
    const written: NodeConfigStatus[] = [];
    const reporter = reporterWriting(written);
    reporter.observe(nodeConfig(1, rev, 4));
    reporter.report({ ...provisioned, observedGeneration: 1 });
    await reporter.flush();
    reporter.observe(nodeConfig(2, revB, 5));
    const about = { revision: revB, observedGeneration: 2, lastAppliedRevision: rev };
    reporter.report({ ...provisioning, ...about });
    await reporter.flush();
    reporter.report({ ...about, configStatus: 'invalid', reason: 'HealthCheckFailed', message: 'x' });
    await reporter.flush();
    reporter.report({ ...provisioned, ...about, lastAppliedRevision: revB });
    await reporter.flush();
    expect(written.map(numbers)).toEqual([
      { answered: 4, applied: 4 },
      { answered: 5, applied: 4 },
      { answered: 5, applied: 4 },
      { answered: 5, applied: 5 },
    ]);
  });

  it('no number it does not know: an unseen generation, a host claim it cannot number, no claim at all', async () => {
    const written: NodeConfigStatus[] = [];
    const reporter = reporterWriting(written);
    reporter.observe(nodeConfig(2, revB, 5));
    reporter.report({ ...provisioned, observedGeneration: 1 }); // generation 1 was never seen
    await reporter.flush();
    reporter.report({ ...provisioning, observedGeneration: 2, lastAppliedRevision: rev }); // host: unnumbered
    await reporter.flush();
    const { lastAppliedRevision: _none, ...restoreFailed } = provisioned;
    reporter.report({ ...restoreFailed, configStatus: 'invalid', observedGeneration: 2, revision: revB });
    await reporter.flush();
    expect(written.map(numbers)).toEqual([
      { answered: undefined, applied: undefined },
      { answered: 5, applied: undefined },
      { answered: 5, applied: undefined },
    ]);
  });

  it('after a restart, the number on the host is read back from the stored status', async () => {
    const written: NodeConfigStatus[] = [];
    const reporter = reporterWriting(written);
    const stored = { ...buildStatus(provisioned, t0), revisionNumber: 4, appliedRevisionNumber: 4 };
    reporter.observe(nodeConfig(2, revB, 5, stored));
    reporter.report({ ...provisioning, observedGeneration: 2, revision: revB, lastAppliedRevision: rev });
    await reporter.flush();
    expect(written.map(numbers)).toEqual([{ answered: 5, applied: 4 }]);
  });
});
