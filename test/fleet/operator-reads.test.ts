/**
 * What an operator reads from `kubectl nodenet` while the real configurator rolls out to simulated
 * agents on devcluster (issue 38): a revision left waiting only for a skipped NotReady node, a fleet
 * pause, the revision nodes roll back to, and `diff` after an abort + retry or a change back. Every
 * `Next:` hint the plugin prints in these states is run, and must work there (no usage error, no
 * unknown revision, no refusal).
 */
import { run } from '@nodenet/cli';
import { findCondition } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import {
  fleetOnRevision1,
  layer2,
  nodeName,
  revisionNumbered,
  setNodeReady,
  useFleet,
  waitFor,
  type AgentBehaviour,
} from './harness.js';

const f = useFleet();

async function cli(...args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (out += s) } };
  const code = await run([...args, '--kubeconfig', f.dc.kubeconfigPath], { ...io, watchIntervalMs: 100 });
  return { code, out };
}

/** The `kubectl nodenet …` commands quoted in the output's `Next:` line, as arguments. */
function hintsOf(out: string): string[][] {
  const next = /^Next: (.*)$/m.exec(out)?.[1] ?? '';
  return [...next.matchAll(/`kubectl nodenet ([^`]+)`/g)].map((m) =>
    m[1]!.split(' ').map((w) => (w === 'NODE' ? nodeName(0) : w)),
  );
}

/**
 * Runs every hint of `out`, in order: each must work in the state it was printed in. Controls must
 * succeed (0); reads may report (0 done, 1 moving, 4 attention). Abort and retry get `--yes` (no
 * terminal to ask).
 */
async function runHints(out: string): Promise<string[]> {
  const hints = hintsOf(out);
  expect(hints.length, `a Next: line with a command:\n${out}`).toBeGreaterThan(0);
  for (const hint of hints) {
    const verb = hint[0]!;
    const control = ['pause', 'resume', 'abort', 'retry'].includes(verb);
    const r = await cli(...hint, ...(verb === 'abort' || verb === 'retry' ? ['--yes'] : []));
    expect(
      control ? [0] : [0, 1, 4],
      `kubectl nodenet ${hint.join(' ')} (hinted by:\n${out})\n${r.out}`,
    ).toContain(r.code);
  }
  return hints.map((h) => h.join(' '));
}

/** Revision `n` once it is complete. */
const completed = (n: number) =>
  waitFor(`revision ${n} complete`, async () => {
    const r = await revisionNumbered(f, n);
    return r?.status?.phase === 'Complete' ? r : undefined;
  });

/** `status` without a revision, once it shows revision `n` (the configurator moves the desired label). */
async function shownByDefault(n: number): Promise<{ code: number; out: string }> {
  return waitFor(`status shows revision ${n}`, async () => {
    const r = await cli('status');
    return r.out.includes(`(number ${n})`) ? r : undefined;
  });
}

describe('what an operator reads while the configurator works (issue 38)', () => {
  it('a skipped NotReady node: the revision reads complete on every available node, --watch ends, Applied says so; it completes when the node returns', async () => {
    await fleetOnRevision1(f, 3, { updateLimit: { kind: 'count', count: 1 } });
    await setNodeReady(f.clients, nodeName(2), false);
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2 waits only for node-002', async () => {
      const r = await revisionNumbered(f, 2);
      return findCondition(r?.status?.conditions, 'Progressing')?.reason === 'WaitingForUnavailableNodes'
        ? r
        : undefined;
    });
    expect(r2.status).toMatchObject({ ready: 2, ongoing: 0, queued: 0, degraded: 1, phase: 'RollingOut' });
    expect(r2.status?.completedAt).toBeUndefined();

    const status = await cli('status');
    expect(status.out).toContain(
      'State:     Complete on every available node; waiting for 1 unavailable node',
    );
    expect(status.out).not.toContain('Rolling out');
    expect(status.out).not.toMatch(/pause|abort/);
    expect(status.code).toBe(4);
    expect(await runHints(status.out)).toEqual([`why ${nodeName(2)}`]);

    // --watch ends on it (it never did: the revision read "Rolling out" forever).
    const watch = await Promise.race([
      cli('status', '--watch'),
      new Promise<'still watching'>((r) => setTimeout(r, 20_000, 'still watching')),
    ]);
    expect(watch).not.toBe('still watching');
    expect((watch as { code: number }).code).toBe(4);

    const applied = await waitFor('red reads Applied=False WaitingForUnavailableNodes', async () => {
      const c = findCondition((await f.clients.layer2.get('red')).status?.conditions, 'Applied');
      return c?.reason === 'WaitingForUnavailableNodes' ? c : undefined;
    });
    expect(applied.message).toContain(
      `revision ${r2.metadata.name} is on every available node (2/3 nodes ready)`,
    );

    // The node returns: it takes revision 2 forward (counted) and the revision completes.
    await setNodeReady(f.clients, nodeName(2), true);
    await waitFor('revision 2 complete', async () =>
      (await revisionNumbered(f, 2))?.status?.phase === 'Complete' ? true : undefined,
    );
    const red = await waitFor('red Applied', async () => {
      const c = findCondition((await f.clients.layer2.get('red')).status?.conditions, 'Applied');
      return c?.status === 'True' ? c : undefined;
    });
    expect(red.reason).toBe('Applied');
  }, 60_000);

  it('a fleet pause: status hints `kubectl nodenet resume` (the fleet), which continues the rollout', async () => {
    await fleetOnRevision1(f, 3, { updateLimit: { kind: 'count', count: 1 } });
    expect((await cli('pause')).code).toBe(0);
    await f.clients.layer2.create(layer2('red', 200));
    await waitFor('revision 2 paused', async () =>
      (await revisionNumbered(f, 2))?.status?.phase === 'Paused' ? true : undefined,
    );
    const status = await shownByDefault(2);
    expect(status.out).toContain('State:     Paused');
    expect(status.out).not.toMatch(/resume rev-/);
    expect(await runHints(status.out)).toEqual(['resume']);
    await waitFor('revision 2 complete after the hinted resume', async () =>
      (await revisionNumbered(f, 2))?.status?.phase === 'Complete' ? true : undefined,
    );
  }, 60_000);

  it('during a rollback the revision in force never reads Rolling out nor suggests abort; the halted one hints retry, which works', async () => {
    let rev1 = '';
    let slowRollback = false;
    const behaviour = (_node: string, revision: string): AgentBehaviour =>
      !rev1 || revision === rev1
        ? { kind: 'ok', delayMs: slowRollback ? 3000 : 30 }
        : { kind: 'invalid', delayMs: 100, message: 'health check failed: tcp/peer (simulated)' };
    const r1 = await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 1 }, maxFailures: 0 },
      { agents: { behaviour } },
    );
    rev1 = r1.spec.hash;
    slowRollback = true;
    await f.clients.layer2.create(layer2('red', 200));
    await waitFor('revision 2 invalid', async () =>
      (await revisionNumbered(f, 2))?.status?.isInvalid === true ? true : undefined,
    );
    // Every frame from the halt until the fallback is complete again with every node back on it.
    const frames: string[] = [];
    await waitFor(
      'revision 1 complete again, node-000 back on it',
      async () => {
        const s = await cli('status', '1');
        frames.push(s.out);
        return /^State: {5}Complete$/m.test(s.out) &&
          !s.out.includes('In progress:') &&
          (await cli('status', '2')).out.includes('Every node that took')
          ? true
          : undefined;
      },
      30_000,
    );
    // Whatever the configurator's status says meanwhile, the fallback never reads as a rollout
    // (packages/cli/test/plugin.test.ts pins the frame where it is not complete: Restoring).
    for (const o of frames) {
      expect(o).toMatch(
        /^State: {5}(Complete|Restoring: nodes roll back to this revision from rev-000002-\w+)$/m,
      );
      expect(o).not.toContain('abort');
      if (o.includes('Restoring'))
        expect(await runHints(o)).toEqual([expect.stringMatching(/^status rev-000002-/)]);
    }

    // The halted revision's own hint (retry) works too.
    const halted = await cli('status', '2');
    expect(await runHints(halted.out)).toEqual([expect.stringMatching(/^retry rev-000002-/)]);
  }, 60_000);

  it('a rolling-out revision hints pause and abort, both of which work; diff after retry names the one in force', async () => {
    let slow = true;
    await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 1 } },
      { later: () => ({ kind: 'ok', delayMs: slow ? 60_000 : 50 }) },
    );
    await f.clients.layer2.create(layer2('red', 200));
    await waitFor('revision 2 rolling out', async () =>
      (await revisionNumbered(f, 2))?.status?.ongoing === 1 ? true : undefined,
    );
    const rolling = await shownByDefault(2);
    expect(rolling.out).toContain('State:     Rolling out');
    expect(await runHints(rolling.out)).toEqual([
      expect.stringMatching(/^pause rev-000002-/),
      expect.stringMatching(/^abort rev-000002-/),
    ]);
    await waitFor('revision 2 aborted', async () =>
      (await revisionNumbered(f, 2))?.status?.isInvalid === true ? true : undefined,
    );
    slow = false;
    expect((await cli('retry', '2', '--yes')).code).toBe(0);
    const r3 = await completed(3);
    expect(r3.spec.hash).toBe((await revisionNumbered(f, 2))!.spec.hash);
    // The inputs equal revision 3, in force: not "invalid revision 2 … retry" (refused, exit 6).
    const diff = await cli('diff');
    expect(diff.out).not.toContain('invalid revision');
    expect(diff.out).not.toContain('retry');
    expect(diff.code).toBe(0);

    // A change back to revision 1's content: revision 4 has revision 1's hash and is in force.
    await f.clients.layer2.delete('red');
    const r4 = await completed(4);
    expect(r4.spec.hash).toBe((await revisionNumbered(f, 1))!.spec.hash);
    const preview = await cli('diff');
    expect(preview.out).not.toContain('rev-000001');
    expect(preview.code).toBe(0);
  }, 60_000);

  it('status --watch of your change exits 0 when it finishes cleanly, though an older input is still held back', async () => {
    await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 1 } },
      { later: () => ({ kind: 'ok', delayMs: 1000 }) },
    );
    await f.clients.layer2.create(layer2('clash', 100)); // VLAN 100 is blue's: refused, held back
    await waitFor('clash refused', async () =>
      findCondition((await f.clients.layer2.get('clash')).status?.conditions, 'Accepted')?.status === 'False'
        ? true
        : undefined,
    );
    await f.clients.layer2.create(layer2('red', 200));
    const moving = await shownByDefault(2);
    expect(moving.out).toContain('Attention: Layer2NetworkConfiguration/clash');
    const watch = await cli('status', '--watch');
    expect(watch.out).toMatch(/State: {5}Complete\n/);
    expect(watch.out).toContain('Attention: Layer2NetworkConfiguration/clash');
    expect(watch.code, watch.out).toBe(0);
    // Plain status still says something is held back.
    expect((await cli('status')).code).toBe(4);
  }, 60_000);
});
