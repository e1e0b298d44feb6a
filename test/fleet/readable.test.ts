/**
 * What kubectl shows about revisions (issue 19): names in number order, exactly one revision labelled
 * desired, and `kubectl wait --for=condition=Finished` returning on an invalid revision.
 * devcluster, the real configurator, simulated agents; kubectl as the independent client.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { APPLIED_NUMBER_LABEL, DESIRED_LABEL, REPORT_LABEL } from '@nodenet/api';
import {
  fleetOnRevision1,
  kubectlOf,
  layer2,
  nodeName,
  revisionNumbered,
  useFleet,
  waitFor,
} from './harness.js';

const f = useFleet();
const kubectl = kubectlOf(f);
const lines = (s: string): string[] => s.split('\n').filter((l) => l.trim() !== '');
const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/.bin');

/** `kubectl nodenet …` as a user runs it: kubectl finds the plugin on the PATH (exit code ignored). */
async function plugin(...args: string[]): Promise<string> {
  const r = await promisify(execFile)('kubectl', ['nodenet', ...args, '--kubeconfig', f.dc.kubeconfigPath], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${BIN}${path.delimiter}${process.env.PATH ?? ''}` },
  }).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
  return r.stdout;
}

/** The cells of the table row whose first cell is `first`, by header (cut at the header's columns: some cells are empty). */
function rowOf(table: string, first: string): Record<string, string> {
  const [head, ...rows] = lines(table);
  const starts = [...head!.matchAll(/\S+/g)].map((m) => ({ name: m[0], at: m.index }));
  const row = rows.find((l) => l.split(/\s+/)[0] === first) ?? '';
  return Object.fromEntries(
    starts.map((c, i) => [c.name, row.slice(c.at, starts[i + 1]?.at ?? row.length).trim()]),
  );
}

describe('revisions you can read with kubectl', () => {
  it('kubectl get ncr lists revisions in number order past 10, with exactly one labelled desired', async () => {
    await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 3 } },
      {
        later: () => ({
          kind: 'ok',
          delayMs: 20,
        }),
      },
    );
    // Eleven more changes, one revision each (the next change waits for the revision of the last).
    for (let i = 2; i <= 12; i++) {
      await f.clients.layer2.create(layer2(`net-${i}`, 100 + i));
      await waitFor(`revision ${i}`, () => revisionNumbered(f, i));
    }
    await waitFor('revision 12 desired and labelled', async () =>
      (await revisionNumbered(f, 12))?.metadata.labels?.[DESIRED_LABEL] === 'true' ? true : undefined,
    );
    const numbers = lines(
      await kubectl('get', 'ncr', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,N:.spec.number'),
    ).map((l) => l.split(/\s+/));
    // Older revisions beyond --revision-history-limit are gone; the rest list in number order.
    const listed = numbers.map(([, n]) => Number(n));
    expect(listed).toEqual([...listed].sort((a, b) => a - b));
    expect(listed.slice(-4)).toEqual([9, 10, 11, 12]);
    expect(numbers.find(([, n]) => n === '10')?.[0]).toMatch(/^rev-000010-[0-9a-f]{10}$/);
    await waitFor('the old desired label is gone', async () =>
      lines(await kubectl('get', 'ncr', '-l', `${DESIRED_LABEL}=true`, '-o', 'name')).length === 1
        ? true
        : undefined,
    );
    const desired = lines(await kubectl('get', 'ncr', '-l', `${DESIRED_LABEL}=true`, '-o', 'name'));
    expect(desired).toEqual([
      `networkconfigrevision.network.nodenet.io/${(await revisionNumbered(f, 12))?.metadata.name}`,
    ]);
    // The table shows the phase and the desired column.
    const table = await kubectl('get', 'ncr');
    expect(lines(table)[0]).toMatch(/NAME\s+NUMBER\s+PHASE\s+DESIRED\s+READY/);
    await waitFor('revision 12 complete', async () =>
      (await revisionNumbered(f, 12))?.status?.phase === 'Complete' ? true : undefined,
    );
    expect((await revisionNumbered(f, 11))?.status?.phase).toBe('Superseded');
  });

  it("kubectl get nc: desired, answered and applied numbers apart, an older agent's row kept in labels, a timeout as an Event on the NodeConfig", async () => {
    await fleetOnRevision1(
      f,
      2,
      { updateLimit: { kind: 'count', count: 2 }, maxFailures: 1, preconfigTimeoutMs: 1500 },
      {
        later: (node) => (node === nodeName(0) ? { kind: 'never' } : { kind: 'ok', delayMs: 20 }),
        // node-001 runs an agent from before status.revisionNumber.
        agents: { legacyAgents: (node) => node === nodeName(1) },
      },
    );
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2', () => revisionNumbered(f, 2));
    /** The row's cells by column (an empty cell stays empty: the header gives the positions). */
    const row = async (node: string): Promise<Record<string, string>> => {
      const [header = '', line = ''] = lines(await kubectl('get', 'nc', node));
      const starts = ['DESIRED', 'ANSWERED', 'STATUS', 'APPLIED', 'LAST UPDATE'].map((c) =>
        header.indexOf(c),
      );
      const cell = (i: number): string => line.slice(starts[i], starts[i + 1]).trim();
      return { desired: cell(0), answered: cell(1), status: cell(2), applied: cell(3) };
    };
    // The older agent's row: numbers from the configurator's labels, written after its report.
    await waitFor('node-001 on revision 2', async () => {
      const labels = (await f.clients.nodeConfig.get(nodeName(1))).metadata.labels ?? {};
      return labels[REPORT_LABEL] === 'provisioned' && labels[APPLIED_NUMBER_LABEL] === '2'
        ? true
        : undefined;
    });
    expect(await row(nodeName(1))).toEqual({
      desired: '2',
      answered: '',
      status: 'provisioned',
      applied: '',
    });
    // node-000's agent is silent: its last report (provisioned) answers revision 1, not 2, and says so.
    expect(await row(nodeName(0))).toEqual({
      desired: '2',
      answered: '1',
      status: 'provisioned',
      applied: '1',
    });
    const labels0 = (await f.clients.nodeConfig.get(nodeName(0))).metadata.labels ?? {};
    expect([labels0[REPORT_LABEL], labels0[APPLIED_NUMBER_LABEL]]).toEqual([undefined, undefined]);
    const ev = await waitFor('a Timeout Event on the NodeConfig', async () =>
      (await f.clients.event.list({ namespace: 'default' })).items.find(
        (e) => e.reason === 'Timeout' && e.involvedObject.kind === 'NodeConfig',
      ),
    );
    expect(ev).toMatchObject({ type: 'Warning', involvedObject: { name: nodeName(0) } });
    expect(ev.message).toMatch(/^preconfig timeout/);
    expect((await revisionNumbered(f, 2))?.metadata.name).toBe(r2.metadata.name);
  });

  it('kubectl wait --for=condition=Finished returns on an invalid revision; the desired label moves back', async () => {
    const r1 = await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 1 } },
      {
        later: () => ({
          kind: 'invalid',
          delayMs: 100,
          message: 'health check failed: gateway unreachable',
        }),
      },
    );
    await f.clients.layer2.create(layer2('red', 200));
    const r2 = await waitFor('revision 2', () => revisionNumbered(f, 2));
    // Without Finished, `--for=condition=Complete` would hang here until its timeout.
    const { stdout } = await promisify(execFile)(
      'kubectl',
      [
        '--kubeconfig',
        f.dc.kubeconfigPath,
        'wait',
        '--for=condition=Finished',
        `ncr/${r2.metadata.name}`,
        '--timeout=120s',
      ],
      { encoding: 'utf8' },
    );
    expect(stdout).toContain('condition met');
    const reason = await kubectl(
      'get',
      'ncr',
      r2.metadata.name,
      '-o',
      'jsonpath={.status.conditions[?(@.type=="Finished")].reason}',
    );
    expect(reason).toBe('Invalid');
    expect((await revisionNumbered(f, 2))?.status?.phase).toBe('Invalid');
    await waitFor('revision 1 labelled desired again, revision 2 not', async () => {
      const names = lines(await kubectl('get', 'ncr', '-l', `${DESIRED_LABEL}=true`, '-o', 'name'));
      return names.length === 1 && names[0]?.endsWith(r1.metadata.name) ? true : undefined;
    });
  });

  it('a superseded revision says how many nodes ran it: kubectl get ncr, kubectl nodenet history and status (issue 38)', async () => {
    const r1 = await fleetOnRevision1(
      f,
      3,
      { updateLimit: { kind: 'count', count: 3 } },
      {
        later: () => ({ kind: 'ok', delayMs: 20 }),
      },
    );
    await f.clients.layer2.create(layer2('red', 200));
    await waitFor('revision 2 complete, no node left on revision 1', async () => {
      const [one, two] = [await revisionNumbered(f, 1), await revisionNumbered(f, 2)];
      return two?.status?.phase === 'Complete' && one?.status?.total === 0 ? true : undefined;
    });
    // kubectl's own table: no node is on revision 1 now (READY, TOTAL 0), and all 3 ran it.
    const ncr = rowOf(await kubectl('get', 'ncr'), r1.metadata.name);
    expect(ncr).toMatchObject({ PHASE: 'Superseded', READY: '0', TOTAL: '0', 'RAN-ON': '3' });
    expect(rowOf(await kubectl('get', 'ncr'), (await revisionNumbered(f, 2))!.metadata.name)).toMatchObject({
      PHASE: 'Complete',
      READY: '3',
      'RAN-ON': '3',
    });
    const history = rowOf(await plugin('history'), '1');
    expect(history).toMatchObject({ RESULT: 'Superseded', READY: '0', TOTAL: '0', 'RAN-ON': '3' });
    const status = await plugin('status', '1');
    expect(status).toMatch(/^State: {5}Superseded by rev-000002-/m);
    expect(status).toMatch(/^Ran on: {4}3 nodes \(most ready at once\)$/m);
    expect(status).not.toContain('0/0 ready');
  });
});
