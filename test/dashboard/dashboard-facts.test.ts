/**
 * `kubectl nodenet dashboard` without a browser: on one cluster state (devcluster, the real
 * configurator, simulated agents: nodes done, failed, in progress and unavailable), the page's facts
 * are what `kubectl nodenet status / nodes / why / history -o json` print; and the server's guard:
 * loopback by default, the token on every request, no credential in anything it sends.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { run, startDashboard, type DashboardFacts, type Io } from '@nodenet/cli';
import {
  fleetOnRevision1,
  layer2,
  nodeName,
  setNodeReady,
  useFleet,
  waitFor,
  type AgentBehaviour,
} from '../fleet/harness.js';

const f = useFleet();
/** One "now" for the CLI and the server: `why` prints ages. */
const NOW = Date.now();

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    now: () => NOW,
  };
  const code = await run(['--kubeconfig', f.dc.kubeconfigPath, ...args], io);
  return { code, stdout, stderr };
}
const cliJson = async (...args: string[]): Promise<any> =>
  JSON.parse((await cli(...args, '-o', 'json')).stdout);

/** Node 2 fails the second revision, node 4 never answers it, node 5 goes NotReady. */
async function mixedFleet(): Promise<void> {
  let rev1 = '';
  const behaviour = (node: string, revision: string): AgentBehaviour =>
    !rev1 || revision === rev1
      ? { kind: 'ok', delayMs: 30 }
      : node === nodeName(2)
        ? { kind: 'invalid', message: 'link <down> & "out"' }
        : node === nodeName(4)
          ? { kind: 'stuck' }
          : { kind: 'ok', delayMs: 30 };
  const r1 = await fleetOnRevision1(
    f,
    6,
    { updateLimit: { kind: 'count', count: 2 }, maxFailures: 1, waveLabel: 'rack' },
    { labels: (i) => ({ rack: `r${i % 3}` }), agents: { behaviour } },
  );
  rev1 = r1.spec.hash;
  await setNodeReady(f.clients, nodeName(5), false);
  await f.clients.layer2.create(layer2('red', 200));
  await waitFor('node 2 failed and node 4 in progress on revision 2', async () => {
    const rows: any[] = await cliJson('nodes');
    const state = (n: number): string => rows.find((r) => r.node === nodeName(n))?.placement;
    return state(2) === 'failed' && state(4) === 'rolling-out' ? true : undefined;
  });
}

it('the page shows what status, nodes, why and history print, on the same cluster state', async () => {
  await mixedFleet();
  const dashboard = await startDashboard({
    clients: f.clients,
    address: '127.0.0.1',
    port: 0,
    waveLabel: 'rack',
    now: () => NOW,
  });
  try {
    // The informers follow the API: wait until they hold what a fresh read holds, then compare all.
    const compare = async (): Promise<string | undefined> => {
      const facts: DashboardFacts = dashboard.facts();
      const status = await cliJson('status', '--wave-label', 'rack');
      const rows: any[] = await cliJson('nodes');
      const history = await cliJson('history');
      const cells = facts.cells.map((c) => ({
        node: c.node,
        placement: c.placement,
        line: c.line,
      }));
      const expected = rows.map((r) => ({
        node: r.node,
        placement: r.placement,
        line: `${r.confirming ? 'soaking' : r.placement}: ${r.why}`,
      }));
      const same =
        JSON.stringify(facts.status) === JSON.stringify(status) &&
        JSON.stringify(cells) === JSON.stringify(expected) &&
        JSON.stringify(facts.history) === JSON.stringify(history);
      return same ? JSON.stringify(status) : undefined;
    };
    await waitFor('the dashboard and the CLI agree', compare);
    const facts = dashboard.facts();
    expect(facts.status?.revision.number).toBe(2);
    expect(facts.status?.counts.failed).toBe(1);
    expect(new Set(facts.cells.map((c) => c.state))).toEqual(
      new Set(['up-to-date', 'failed', 'rolling-out', 'unavailable']),
    );
    expect(facts.cells.find((c) => c.node === nodeName(3))?.wave).toBe('r0');
    // The revision's disruption summary (the configurator's host preview): the line `status` prints.
    const hosts = await waitFor('the disruption summary of revision 2', async () => {
      const d = dashboard.facts().disruption;
      const line = /^Hosts: +(.*)$/m.exec((await cli('status')).stdout)?.[1];
      return d !== undefined && d === line ? d : undefined;
    });
    expect(hosts).toMatch(/ at worst, against rev-000001-/);
    // A click shows exactly what `why` prints, and the agent's status.
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${dashboard.url}api/node?name=${nodeName(i)}`);
      const detail = (await res.json()) as { why: string; status?: Record<string, unknown> };
      expect(detail.why).toBe((await cli('why', nodeName(i))).stdout);
    }
    const failed = (await (await fetch(`${dashboard.url}api/node?name=${nodeName(2)}`)).json()) as any;
    expect(failed.status).toMatchObject({
      configStatus: 'invalid',
      failureCause: 'ChangeFailed',
      message: 'link <down> & "out"',
    });
    const unknown = await fetch(`${dashboard.url}api/node?name=nope`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { message: string }).message).toBe(
      (await cli('why', 'nope')).stderr.replace(/^error: /, '').trimEnd(),
    );
  } finally {
    await dashboard.stop();
  }
});

it('binds loopback, wants the token on every request, and never sends a credential', async () => {
  await f.clients.layer2.create(layer2('blue', 100));
  // The user's own identity: a kubeconfig with a bearer token, which must never reach the page.
  const kubeconfig = f.dc.kubeconfigFor({ username: 'alice', groups: ['system:masters'] });
  const secret = (parse(readFileSync(kubeconfig, 'utf8')) as any).users[0].user.token as string;
  expect(secret).toMatch(/\S{16,}/);
  const stop = new AbortController();
  let out = '';
  const running = run(['--kubeconfig', kubeconfig, 'dashboard', '--port', '0'], {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (out += s) },
    signal: stop.signal,
  });
  try {
    const url = await waitFor('the URL printed', async () => /Dashboard: (\S+)/.exec(out)?.[1]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[\w-]{32}\/$/);
    const base = new URL(url);
    const root = `${base.protocol}//${base.host}`;
    const token = base.pathname.split('/')[1]!;

    // Without the token, or with another one, nothing is served.
    for (const path of [
      '/',
      '/app.js',
      '/events',
      '/api/node?name=node-000',
      `/${token.slice(1)}x/`,
      '/x/events',
    ])
      expect((await fetch(root + path)).status, path).toBe(403);
    // A write needs the token in the header too (a form on another site cannot set one): nothing changes.
    const blind = await fetch(`${url}api/control`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ verb: 'pause' }),
    });
    expect(blind.status).toBe(403);
    expect((await cli('status')).stdout).not.toContain('fleet is paused');
    const post = (body: unknown): Promise<Response> =>
      fetch(`${url}api/control`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Nodenet-Token': token },
        body: JSON.stringify(body),
      });
    const bad = await post({ verb: 'destroy' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toBe(
      'verb: must be one of pause, resume, abort, retry (got "destroy")',
    );

    // With it: the page, under a policy that loads nothing from elsewhere, and the facts.
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const sent: string[] = [await page.text()];
    for (const asset of ['app.js', 'style.css', 'api/node?name=node-000'])
      sent.push(await (await fetch(url + asset)).text());
    const events = await fetch(`${url}events`);
    const reader = events.body!.getReader();
    let snapshot = '';
    while (!snapshot.includes('\n\n')) snapshot += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(snapshot).toMatch(/^event: snapshot\ndata: \{/);
    sent.push(snapshot);
    // A control is performed as the user, with the CLI's text.
    const paused = (await (await post({ verb: 'pause' })).json()) as { ok: boolean; message: string };
    expect(paused.ok).toBe(true);
    expect((await cli('pause')).stdout).toBe('the fleet is already paused (RolloutPolicy/default)\n');
    sent.push(JSON.stringify(paused));
    for (const body of sent) expect(body).not.toContain(secret);
  } finally {
    stop.abort();
    expect(await running).toBe(0);
  }
});
