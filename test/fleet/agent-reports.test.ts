/**
 * What the configurator makes of what agents report (issue #24): a huge message must not stop an
 * invalidation, and an agent DaemonSet restart (reported `failureCause: Interrupted`) must not
 * invalidate a good revision. Real configurator over HTTP, devcluster, simulated agents.
 */
import { describe, expect, it } from 'vitest';
import { MAX_AGENT_MESSAGE_LENGTH } from '@nodenet/api';
import {
  fleetOnRevision1,
  layer2,
  nodeName,
  revisionNumbered,
  useFleet,
  waitFor,
  isComplete,
} from './harness.js';

const f = useFleet();

describe('agent reports', () => {
  it('an agent that writes a huge message still gets its revision invalidated and its nodes rolled back', async () => {
    // The most the CRD accepts in the message and in every condition (MAX_AGENT_MESSAGE_LENGTH since
    // issue 37; a longer one is refused by the API server itself). The configurator copies only a
    // bounded part of it into the revision (a 1 MB message: packages/configurator/test/rollout/model.test.ts).
    const prefix = 'health check failed: ';
    const huge = `${prefix}${'x'.repeat(MAX_AGENT_MESSAGE_LENGTH - prefix.length)}`;
    const r1 = await fleetOnRevision1(
      f,
      4,
      { updateLimit: { kind: 'count', count: 2 } },
      {
        later: (node) =>
          node === nodeName(1)
            ? { kind: 'invalid', delayMs: 100, message: huge }
            : { kind: 'ok', delayMs: 100 },
      },
    );
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor(
      'revision 2 invalid',
      async () => {
        const r = await revisionNumbered(f, 2);
        return r?.status?.isInvalid ? r : undefined;
      },
      60_000,
    );
    // The revision names the node; what it copied of the message is bounded.
    expect(r2.status?.failedNodes?.map((n) => n.node)).toContain(nodeName(1));
    expect(JSON.stringify(r2.status).length).toBeLessThan(64 * 1024);
    await waitFor(
      'every node back on revision 1',
      async () =>
        (await f.clients.nodeConfig.list()).items.every(
          (nc) => nc.spec.revision === r1.spec.hash && nc.status?.lastAppliedRevision === r1.spec.hash,
        ),
      60_000,
    );
  }, 120_000);

  it('an agent DaemonSet restart during a rollout (Interrupted reports) does not invalidate a good revision', async () => {
    // Every node's agent is restarted once in its confirm window of revision 2: it restores
    // revision 1, reports Interrupted, and applies revision 2 again on its own.
    await fleetOnRevision1(
      f,
      4,
      { updateLimit: { kind: 'count', count: 2 } },
      {
        later: () => ({
          kind: 'interrupted',
          delayMs: 100,
          retryAfterMs: 300,
        }),
      },
    );
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor(
      'revision 2 complete',
      async () => {
        const r = await revisionNumbered(f, 2);
        if (r?.status?.isInvalid) throw new Error(`revision 2 invalidated: ${JSON.stringify(r.status)}`);
        return isComplete(r) ? r : undefined;
      },
      60_000,
    );
    expect(r2.status?.isInvalid).toBe(false);
    expect(r2.status?.failedNodes ?? []).toEqual([]);
    // Every node did report Interrupted at least once.
    const interrupted = new Set(
      f.agents!.writes.filter((w) => w.configStatus === 'invalid').map((w) => w.node),
    );
    expect(interrupted.size).toBe(4);
  }, 120_000);
});
