/**
 * A re-assignment of an unchanged spec (issue 44, item 3): a revert to identical content moves a
 * node that never left that content by its `assigned-at` annotation only (same generation, same
 * spec). docs/agent-status.md asks agents to answer every new `assigned-at`; an agent that answers
 * generation changes only (the older text's minimum) must not be listed degraded or fail the
 * revision for it: its confirmed answer to this very generation is kept. devcluster, the real
 * configurator, simulated agents that answer generation changes only.
 */
import { ASSIGNED_AT_ANNOTATION, type NodeConfig } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { fleetOnRevision1, isComplete, layer2, revisionNumbered, useFleet, waitFor } from './harness.js';

const f = useFleet();
const PRECONFIG_TIMEOUT_MS = 3000;

describe('re-assignment of an unchanged spec', () => {
  it('an agent that answers only generation changes is not degraded by a revert to identical content', async () => {
    // Two nodes, one slot: the first node to take revision 2 never finishes it (holds the slot),
    // so the other stays on revision 1's content.
    const r1 = await fleetOnRevision1(
      f,
      2,
      {
        updateLimit: { kind: 'count', count: 1 },
        preconfigTimeoutMs: PRECONFIG_TIMEOUT_MS,
        configTimeoutMs: 120_000,
      },
      { later: () => ({ kind: 'stuck' }), agents: { generationOnlyAgents: () => true } },
    );
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2 taken by one node', async () => {
      const r = await revisionNumbered(f, 2);
      const ncs = (await f.clients.nodeConfig.list()).items;
      return r && ncs.some((nc) => nc.spec.revision === r.spec.hash) ? r : undefined;
    });
    const before = (await f.clients.nodeConfig.list()).items;
    const untouched = before.find((nc) => nc.spec.revision === r1.spec.hash) as NodeConfig;
    expect(untouched).toBeDefined();

    // The revert: revision 3 has revision 1's content (and hash).
    await f.clients.layer2.delete('red');
    const r3 = await waitFor('revision 3', () => revisionNumbered(f, 3));
    expect(r3.spec.hash).toBe(r1.spec.hash);
    expect(r3.spec.hash).not.toBe(r2.spec.hash);
    // The untouched node is re-assigned: a new assigned-at, the same generation and spec.
    const moved = await waitFor('untouched node re-assigned', async () => {
      const nc = await f.clients.nodeConfig.get(untouched.metadata.name);
      return nc.metadata.annotations?.[ASSIGNED_AT_ANNOTATION] !==
        untouched.metadata.annotations?.[ASSIGNED_AT_ANNOTATION]
        ? nc
        : undefined;
    });
    expect(moved.metadata.generation).toBe(untouched.metadata.generation);
    expect(moved.spec).toEqual(untouched.spec);

    await waitFor('revision 3 complete', async () => isComplete(await revisionNumbered(f, 3)), 20_000);
    // Well past the preconfig timeout: still complete, valid, nobody degraded.
    await new Promise((r) => setTimeout(r, PRECONFIG_TIMEOUT_MS + 2000));
    const after = await revisionNumbered(f, 3);
    expect(after?.status?.isInvalid).not.toBe(true);
    expect(after?.status?.degraded ?? 0).toBe(0);
    expect(after?.status?.degradedNodes ?? []).toEqual([]);
    // The agent never wrote again for the re-assignment: the configurator kept its answer.
    const last = await f.clients.nodeConfig.get(untouched.metadata.name);
    expect(last.status?.lastUpdate).toBe(untouched.status?.lastUpdate);
  }, 90_000);
});
