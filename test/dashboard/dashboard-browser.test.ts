/**
 * `kubectl nodenet dashboard` in a real browser (Debian's chromium through playwright-core, no
 * browser download) against devcluster, the real configurator and simulated agents: the page
 * follows a rollout without a reload, shows a failed node's cause on click (agent text rendered as
 * text), pauses the fleet as `kubectl nodenet pause` does, and refuses a retry of a valid revision
 * with the CLI's own text. Screenshots go to .tmp/dashboard/ (CI artifacts).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { expect, it } from 'vitest';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { run, startDashboard, type RunningDashboard } from '@nodenet/cli';
import { describePrivileged } from '../support/privileged.js';
import {
  fleetOnRevision1,
  layer2,
  nodeName,
  revisionNumbered,
  setNodeReady,
  useFleet,
  waitFor,
  writeProvisionedFleet,
  type AgentBehaviour,
} from '../fleet/harness.js';
import { parallel } from '@nodenet/kube';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = fileURLToPath(new URL('../../.tmp/dashboard/', import.meta.url));
/** Hostile agent text: must show as these characters, never become markup. */
const HOSTILE = '<img src=x onerror="document.body.dataset.pwned=1"> link failed & <b>down</b>';
const FAILING = nodeName(2);
const BIG_FLEET = 5000;

// What the functions run in the page see (this test is compiled without the DOM library).
declare const document: any;
declare const window: any;
declare const MutationObserver: any;

const f = useFleet();

/** The CLI in process, as the binary runs it. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(['--kubeconfig', f.dc.kubeconfigPath, ...args], {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  });
  return { code, stdout, stderr };
}

const cellStates = (page: Page): Promise<Record<string, string>> =>
  page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('#grid .cell')].map((b) => [b.dataset.node, b.dataset.state]),
    ),
  );

async function control(
  page: Page,
  selector: string,
): Promise<{ confirm: string; outcome: string; text: string }> {
  await page.evaluate(() => delete document.getElementById('control-result')!.dataset.outcome);
  await page.click(selector);
  await page.waitForSelector('#confirm[open]');
  const confirm = await page.textContent('#confirm-text');
  await page.click('#confirm-ok');
  await page.waitForSelector('#control-result[data-outcome]');
  return {
    confirm: confirm ?? '',
    outcome: (await page.getAttribute('#control-result', 'data-outcome')) ?? '',
    text: (await page.textContent('#control-result')) ?? '',
  };
}

/** Chromium on a fresh profile (--user-data-dir, which playwright passes for a persistent context). */
const launchChromium = (
  userDataDir: string,
  viewport: { width: number; height: number },
): Promise<BrowserContext> =>
  chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

describePrivileged('kubectl nodenet dashboard in Chromium', { commands: [CHROMIUM] }, () => {
  it('follows a rollout live, shows a failure on click, pauses the fleet, refuses a retry as the CLI does', async () => {
    mkdirSync(SHOTS, { recursive: true });
    const okHashes = new Set<string>();
    let failArmed = false;
    const behaviour = (node: string, revision: string): AgentBehaviour =>
      failArmed && node === FAILING && !okHashes.has(revision)
        ? { kind: 'invalid', delayMs: 100, message: HOSTILE }
        : { kind: 'ok', delayMs: okHashes.size === 0 ? 30 : 300 };
    const r1 = await fleetOnRevision1(
      f,
      6,
      { updateLimit: { kind: 'count', count: 1 }, waveLabel: 'rack', maxFailures: 1 },
      { labels: (i) => ({ rack: `r${i % 2}` }), agents: { behaviour } },
    );
    okHashes.add(r1.spec.hash);

    const userDataDir = mkdtempSync(join(tmpdir(), 'nodenet-chromium-'));
    let browser: BrowserContext | undefined;
    let dashboard: RunningDashboard | undefined;
    try {
      dashboard = await startDashboard({
        clients: f.clients,
        address: '127.0.0.1',
        port: 0,
        waveLabel: 'rack',
      });
      browser = await launchChromium(userDataDir, { width: 1280, height: 900 });
      const page = browser.pages()[0] ?? (await browser.newPage());
      // The page's own errors (a CSP violation, an exception) are failures of this test.
      const pageErrors: string[] = [];
      page.on('pageerror', (err) => pageErrors.push(err.message));
      page.on('console', (m) => {
        if (m.type() === 'error') pageErrors.push(m.text());
      });
      await page.goto(dashboard.url);
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('#grid .cell')].filter(
            (c) => c.getAttribute('data-state') === 'up-to-date',
          ).length === 6,
      );
      // Grouped by the wave label, every cell marked by a symbol as well as a colour.
      expect(await page.$$eval('.wave h3', (hs) => hs.map((h) => h.textContent))).toEqual([
        'rack=r0 (3)',
        'rack=r1 (3)',
      ]);
      expect(await page.textContent(`[data-node="${nodeName(0)}"]`)).toBe('✓');
      expect(await page.getAttribute(`[data-node="${nodeName(0)}"]`, 'title')).toMatch(
        /^node-000\nup-to-date: on rev-000001-/,
      );
      // The legend names every state, the finer ones of the grid too, each with its symbol.
      const legend = await page.$$eval('#legend li', (lis) => lis.map((li) => li.textContent));
      expect(legend).toContain(
        '= unchanged-moved (host config unchanged by the revision: moved without a slot)',
      );
      expect(legend).toContain('⚙ misconfigured agent (its self-check fails: fix its configuration)');
      expect(legend).toHaveLength(12);
      await page.screenshot({ path: join(SHOTS, '1-complete.png'), fullPage: true });

      // Everything below happens on this one page: a reload would lose the marker and the record.
      await page.evaluate(() => {
        const w = window as unknown as { marker: string; seen: Record<string, string[]> };
        w.marker = 'no reload';
        w.seen = {};
        new MutationObserver((records: any[]) => {
          for (const r of records) {
            const b = r.target as any;
            (w.seen[b.dataset.node!] ??= []).push(b.dataset.state!);
          }
        }).observe(document.getElementById('grid')!, {
          attributes: true,
          subtree: true,
          attributeFilter: ['data-state'],
        });
      });

      // Pause the fleet from the page: the CLI's confirmation and text; `kubectl nodenet status` shows it.
      const paused = await control(page, '[data-scope="fleet"][data-verb="pause"]');
      expect(paused.confirm).toMatch(
        /^pause the whole fleet \(RolloutPolicy default\)\?\n\nPause: no new node starts/,
      );
      expect(paused.outcome).toBe('done');
      expect(paused.text).toMatch(/^fleet paused \(RolloutPolicy\/default spec\.paused=true\)/);
      // The status names the fleet pause (its own words, or the configurator's condition once written).
      await waitFor('`kubectl nodenet status` shows the fleet paused', async () =>
        /^Why: +Paused.*(whole fleet is paused|RolloutPolicy default spec\.paused)/m.test(
          (await cli('status')).stdout,
        )
          ? true
          : undefined,
      );

      // A change while paused: revision 2 is created and held.
      await f.clients.layer2.create(layer2('red', 200));
      await page.waitForFunction(() =>
        document.getElementById('revision')!.textContent!.includes('(number 2)'),
      );
      await page.waitForFunction(() => document.getElementById('phase')!.dataset.phase === 'Paused');
      await page.screenshot({ path: join(SHOTS, '2-paused.png'), fullPage: true });
      const r2 = (await revisionNumbered(f, 2))!;
      okHashes.add(r2.spec.hash);
      const pausedBy = async (): Promise<string> =>
        JSON.stringify((JSON.parse((await cli('status', '-o', 'json')).stdout) as any).pausedBy);

      // Pause revision 2 itself from the page: the fleet's resume then leaves it paused by its own spec.
      await page.selectOption('#control-revision', r2.metadata.name);
      const revPaused = await control(page, '[data-scope="revision"][data-verb="pause"]');
      expect(revPaused.confirm).toMatch(
        new RegExp(`^pause ${r2.metadata.name}\\?\\n\\nPause: no new node starts`),
      );
      expect(revPaused.outcome).toBe('done');
      expect(revPaused.text).toMatch(new RegExp(`^${r2.metadata.name} paused: no new node starts`));
      expect(await pausedBy()).toBe('{"revision":true,"fleet":true}');
      expect((await control(page, '[data-scope="fleet"][data-verb="resume"]')).text).toMatch(
        /^fleet resumed/,
      );
      expect(await pausedBy()).toBe('{"revision":true,"fleet":false}');
      await page.waitForFunction(
        () => !document.getElementById('phase')!.textContent!.includes('fleet paused'),
      );
      expect(await page.getAttribute('#phase', 'data-phase')).toBe('Paused');
      expect((await cellStates(page))[nodeName(0)]).toBe('held');

      // Resume it from the page: cells change colour as nodes move, without a reload.
      const revResumed = await control(page, '[data-scope="revision"][data-verb="resume"]');
      expect(revResumed.text).toMatch(new RegExp(`^${r2.metadata.name} resumed: nodes start again`));
      expect(await pausedBy()).toBe('{"revision":false,"fleet":false}');
      await page.waitForFunction(() => {
        const states = [...document.querySelectorAll('#grid .cell')].map((c) => c.getAttribute('data-state'));
        return states.includes('up-to-date') && states.some((s) => s !== 'up-to-date');
      });
      await page.screenshot({ path: join(SHOTS, '3-progress.png'), fullPage: true });
      await page.waitForFunction(
        () => document.getElementById('phase')!.dataset.phase === 'Complete',
        undefined,
        { timeout: 20_000 },
      );
      expect(Object.values(await cellStates(page))).toEqual(Array(6).fill('up-to-date'));
      // The revision's disruption summary, as `kubectl nodenet status` prints it.
      await waitFor('the page shows the `Hosts:` line of `kubectl nodenet status`', async () => {
        const line = /^Hosts: +(.*)$/m.exec((await cli('status')).stdout)?.[1];
        return line !== undefined && (await page.textContent('#disruption')) === `Hosts: ${line}`
          ? true
          : undefined;
      });
      const seen = await page.evaluate(() => (window as unknown as { seen: Record<string, string[]> }).seen);
      expect(await page.evaluate(() => (window as unknown as { marker: string }).marker)).toBe('no reload');
      for (let i = 0; i < 6; i++) {
        // Each node was shown behind (held or queued), then on its way or done: colours changed live.
        const states = seen[nodeName(i)] ?? [];
        expect(
          states.some((s) => s === 'held' || s === 'queued'),
          `${nodeName(i)}: ${states.join(',')}`,
        ).toBe(true);
        expect(states.at(-1)).toBe('up-to-date');
      }
      expect(Object.values(seen).flat()).toContain('rolling-out');

      // A failed node: red, marked ✗, and a click shows `kubectl nodenet why` and the agent's text as text.
      failArmed = true;
      await f.clients.layer2.create(layer2('green', 300));
      const failed = `[data-node="${FAILING}"][data-state="failed"]`;
      await page.waitForSelector(failed, { timeout: 20_000 });
      expect(await page.textContent(failed)).toBe('✗');
      await page.click(failed);
      await page.waitForFunction(() =>
        document.getElementById('detail-why')!.textContent!.startsWith('Node:'),
      );
      const why = await cli('why', FAILING);
      await waitFor('the page shows what `why` prints', async () =>
        (await page.textContent('#detail-why')) === (await cli('why', FAILING)).stdout ? true : undefined,
      );
      expect(why.stdout).toContain('State:     failed');
      const detail = await page.textContent('#detail-status');
      expect(detail).toContain(`Message${HOSTILE}`);
      expect(detail).toContain('Failure causeChangeFailed');
      expect(await page.$$('#detail img, #detail b')).toEqual([]);
      expect(await page.evaluate(() => document.body.dataset.pwned)).toBeUndefined();
      await page.screenshot({ path: join(SHOTS, '4-failed-node.png'), fullPage: true });

      // A refused control: retry of a valid revision, with the CLI's text.
      await page.selectOption('#control-revision', r2.metadata.name);
      const refused = await control(page, '[data-scope="revision"][data-verb="retry"]');
      expect(refused.confirm).toMatch(
        new RegExp(`^retry ${r2.metadata.name}\\?\\n\\nTry an invalid revision again`),
      );
      expect(refused.outcome).toBe('refused');
      const cliRetry = await cli('retry', r2.metadata.name, '--yes');
      expect(cliRetry.code).toBe(6);
      expect(cliRetry.stderr).toBe(`error: ${refused.text}\n`);
      expect(refused.text).toBe(
        `${r2.metadata.name} is not invalid; only an invalid revision can be retried`,
      );
      await page.screenshot({ path: join(SHOTS, '5-refused-retry.png'), fullPage: true });

      // Abort from the page: a change held by the fleet pause is stopped before any node takes it.
      expect((await control(page, '[data-scope="fleet"][data-verb="pause"]')).outcome).toBe('done');
      await f.clients.layer2.create(layer2('yellow', 400));
      const r4 = await waitFor('revision 4', () => revisionNumbered(f, 4));
      await page.waitForFunction(() =>
        document.getElementById('revision')!.textContent!.includes('(number 4)'),
      );
      await page.selectOption('#control-revision', r4.metadata.name);
      const aborted = await control(page, '[data-scope="revision"][data-verb="abort"]');
      expect(aborted.confirm).toMatch(new RegExp(`^abort ${r4.metadata.name}\\?\\n\\n`));
      expect(aborted.outcome).toBe('done');
      expect(aborted.text).toMatch(
        new RegExp(`^${r4.metadata.name} aborted: the configurator marks it invalid \\(reason Aborted\\)`),
      );
      await page.waitForFunction(
        (name) =>
          [...document.querySelectorAll('#timeline li')].some((li) =>
            li.textContent.startsWith(`#4 ${name}: Aborted`),
          ),
        r4.metadata.name,
        { timeout: 20_000 },
      );
      const history = JSON.parse((await cli('history', '-o', 'json')).stdout) as any[];
      expect(history.find((h) => h.number === 4)?.result).toBe('Aborted');
      await page.screenshot({ path: join(SHOTS, '6-aborted.png'), fullPage: true });
      expect(await page.evaluate(() => (window as unknown as { marker: string }).marker)).toBe('no reload');
      expect(pageErrors).toEqual([]);
    } catch (err) {
      const page = browser?.pages()[0];
      if (page) {
        await page.screenshot({ path: join(SHOTS, 'failure.png'), fullPage: true }).catch(() => undefined);
        console.error('page errors:', await page.evaluate(() => document.body.innerText).catch(() => ''));
      }
      throw err;
    } finally {
      await browser?.close();
      await dashboard?.stop();
      rmSync(userDataDir, { recursive: true, force: true });
    }
  }, 120_000);

  // Speed at this size (first render, an update, the server's RSS) is measured by `npm run bench
  // dashboard`, not asserted here; this case asserts the page is complete and live at 5,000 nodes.
  it('draws 5,000 nodes in 100 racks and follows an update without a reload', async () => {
    await writeProvisionedFleet(f.clients, { nodes: BIG_FLEET, racks: 100 });
    const userDataDir = mkdtempSync(join(tmpdir(), 'nodenet-chromium-'));
    let browser: BrowserContext | undefined;
    let dashboard: RunningDashboard | undefined;
    try {
      dashboard = await startDashboard({
        clients: f.clients,
        address: '127.0.0.1',
        port: 0,
        waveLabel: 'rack',
      });
      browser = await launchChromium(userDataDir, { width: 1600, height: 1000 });
      const page = browser.pages()[0] ?? (await browser.newPage());
      await page.goto(dashboard.url);
      await page.waitForFunction(
        (n) => document.querySelectorAll('#grid .cell[data-state="up-to-date"]').length === n,
        BIG_FLEET,
        { timeout: 60_000 },
      );
      const racks = await page.$$eval('.wave h3', (hs) => hs.map((h) => h.textContent));
      expect(racks).toHaveLength(100);
      expect(racks[0]).toBe('rack=r000 (50)');
      expect(racks[99]).toBe('rack=r099 (50)');
      expect(await page.textContent('#counts')).toBe(
        'ready 5000, ongoing 0, queued 0, failed 0, degraded 0, total 5000',
      );
      const before = Number(await page.evaluate(() => document.body.dataset.updates));
      await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'no reload'));

      // 50 Nodes go NotReady: the page shows exactly those unavailable, the rest unchanged.
      const down = Array.from({ length: 50 }, (_, i) => nodeName(i * 100 + 7));
      await parallel(down, 16, async (n) => {
        await setNodeReady(f.clients, n, false);
      });
      await page.waitForFunction(
        (n) => document.querySelectorAll('#grid .cell[data-state="unavailable"]').length === n,
        down.length,
        { timeout: 30_000 },
      );
      const states = await cellStates(page);
      expect(Object.keys(states)).toHaveLength(BIG_FLEET);
      expect(
        Object.entries(states)
          .filter(([, st]) => st === 'unavailable')
          .map(([n]) => n)
          .sort(),
      ).toEqual([...down].sort());
      expect(Object.values(states).filter((st) => st === 'up-to-date')).toHaveLength(BIG_FLEET - down.length);
      expect(Number(await page.evaluate(() => document.body.dataset.updates))).toBeGreaterThan(before);
      expect(await page.evaluate(() => (window as unknown as { marker: string }).marker)).toBe('no reload');
      await page.screenshot({ path: join(SHOTS, '7-5000-nodes.png') });
    } finally {
      await browser?.close();
      await dashboard?.stop();
      rmSync(userDataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
