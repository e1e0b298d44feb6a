/**
 * Issue 40: agent liveness through a per-node Lease (docs/agent-status.md, "Liveness"). The real
 * configurator against devcluster, simulated agents that write what the real agent writes
 * (packages/testkit/src/fleet/agent-liveness.ts): `provisioning` once, a Lease renewal every
 * heartbeat interval while working, the last report. Times are the defaults compressed 60×: a 5 s
 * config timeout (5m), renewals every 2.5 s (150s), a 4 s apply and confirm window (4m).
 *
 * The upper bound of "caught within --config-timeout" is checked on the simulator's virtual clock
 * (packages/configurator/test/sim/liveness.test.ts); here only what cannot flake under load: a silent
 * agent is failed, never before the timeout, and a slow one is not.
 */
import { describe, expect, it } from 'vitest';
import { AGENT_LEASE_LABEL } from '@nodenet/api';
import { Informer, type Lease } from '@nodenet/kube';
import { fleetOnRevision1, layer2, nodeName, revisionNumbered, useFleet, waitFor } from './harness.js';

const f = useFleet();
const CONFIG_TIMEOUT_MS = 5_000;
const HEARTBEAT_MS = 2_500;
const WINDOW_MS = 4_000;

/** Writes per node of an independent watch: NodeConfig events (every writer) and Lease events. */
async function countWrites(): Promise<{ perNode: (from: number) => Map<string, number>; stop: () => void }> {
  const leases = new Informer<Lease>(f.clients.lease, {
    namespace: 'default',
    labelSelector: AGENT_LEASE_LABEL,
  });
  const leaseEvents: { node: string; at: number }[] = [];
  leases.on((e) => {
    if (e.type === 'add' || e.type === 'update')
      leaseEvents.push({ node: e.object.metadata.name, at: Date.now() });
  });
  leases.start();
  await leases.waitForSync();
  return {
    perNode: (from) => {
      const out = new Map<string, number>();
      const add = (node: string): void => void out.set(node, (out.get(node) ?? 0) + 1);
      for (const e of f.recorder.events) if (e.at >= from) add(e.nc.metadata.name);
      for (const e of leaseEvents) if (e.at >= from) add(e.node);
      return out;
    },
    stop: () => leases.stop(),
  };
}

describe('agent liveness through the Lease (issue 40)', () => {
  it('a slow agent that renews its Lease is not failed; a silent one is, not before --config-timeout; an old agent that heartbeats through status is not failed', async () => {
    const [slow, silent, old] = [0, 1, 2].map(nodeName) as [string, string, string];
    await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 3 }, maxFailures: 1, configTimeoutMs: CONFIG_TIMEOUT_MS },
      {
        // Slow: twice the config timeout; silent: `provisioning`, then neither a report nor a renewal.
        later: (node) =>
          node === silent ? { kind: 'stuck' } : { kind: 'ok', delayMs: 2 * CONFIG_TIMEOUT_MS },
        agents: { liveness: { heartbeatMs: HEARTBEAT_MS }, statusHeartbeatAgents: (node) => node === old },
      },
    );
    await f.clients.layer2.create(layer2('red', 200));
    const silentSince = await waitFor(
      'the silent agent reported provisioning',
      async () => f.agents!.writes.find((w) => w.node === silent && w.configStatus === 'provisioning')?.at,
    );
    const r2 = await waitFor(
      'revision 2 complete',
      async () => {
        const r = await revisionNumbered(f, 2);
        return r?.status?.completedAt ? r : undefined;
      },
      60_000,
    );
    const failed = r2.status?.failedNodes ?? [];
    expect(failed.map((x) => x.node)).toEqual([silent]);
    expect(failed[0]?.message).toMatch(
      /^config timeout: agent reported provisioning and nothing since .* for 5s$/,
    );
    // Not before the timeout: the failure was written after --config-timeout of silence had passed.
    expect(Date.parse(failed[0]!.at) - silentSince).toBeGreaterThanOrEqual(CONFIG_TIMEOUT_MS - 1_000);
    const ncs = (await f.clients.nodeConfig.list()).items;
    for (const n of [slow, old])
      expect(ncs.find((nc) => nc.metadata.name === n)?.status).toMatchObject({
        configStatus: 'provisioned',
        lastAppliedRevision: r2.spec.hash,
      });
    // The slow agent kept its node through the Lease; the old one through status rewrites.
    const renewed = f.agents!.leases.renewals.map((r) => r.node);
    expect(renewed).toContain(slow);
    expect(renewed).not.toContain(old);
    expect(renewed).not.toContain(silent);
    expect(
      f.agents!.writes.filter((w) => w.node === old && w.configStatus === 'provisioning').length,
    ).toBeGreaterThan(1);
  }, 90_000);

  it('a rollout at the default intervals (compressed) costs at most 4 writes per node, all writers; an idle fleet writes nothing', async () => {
    const n = 3;
    await fleetOnRevision1(
      f,
      n,
      { updateLimit: { kind: 'count', count: n }, configTimeoutMs: CONFIG_TIMEOUT_MS },
      {
        later: () => ({ kind: 'ok', delayMs: WINDOW_MS }),
        agents: { liveness: { heartbeatMs: HEARTBEAT_MS } },
      },
    );
    const writes = await countWrites();
    try {
      const from = Date.now();
      await f.clients.layer2.create(layer2('red', 200));
      await waitFor(
        'revision 2 complete',
        async () => ((await revisionNumbered(f, 2))?.status?.completedAt ? true : undefined),
        60_000,
      );
      await new Promise((r) => setTimeout(r, 500)); // the watch delivers the last writes
      const perNode = writes.perNode(from);
      // The configurator's spec write, `provisioning`, one renewal, `provisioned`.
      expect([...perNode.keys()].sort()).toEqual([0, 1, 2].map(nodeName));
      for (const [node, count] of perNode) expect(count, node).toBeLessThanOrEqual(4);
      expect(f.agents!.leases.renewals.length).toBeGreaterThan(0);

      const idleFrom = Date.now();
      await new Promise((r) => setTimeout(r, 2 * HEARTBEAT_MS + 500));
      expect(writes.perNode(idleFrom)).toEqual(new Map());
    } finally {
      writes.stop();
    }
  }, 90_000);
});
