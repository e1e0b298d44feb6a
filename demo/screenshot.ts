/**
 * `node --import tsx demo/screenshot.ts`: the README's picture of the dashboard, taken from the
 * demo's real state. Runs `npm start` (simulated agents) until its story is played (a good change
 * rolled out, a bad one halted and rolled back), opens `kubectl nodenet dashboard` on its cluster
 * in Debian's chromium (playwright-core), saves docs/dashboard-halted.png, and stops the demo with
 * Ctrl-C as a person would (it removes everything it created).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startDashboard } from '@nodenet/cli';
import { KubeClient, loadKubeConfig, makeClients } from '@nodenet/kube';
import { waitFor } from '@nodenet/testkit';

// What the functions run in the page see (compiled without the DOM library).
declare const document: { querySelector(s: string): { textContent: string | null } | null };

const repo = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(repo, 'docs', 'dashboard-halted.png');

const demo = spawn(
  process.execPath,
  ['--import', 'tsx', join(repo, 'demo/main.ts'), '--agents', 'simulated'],
  {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
let out = '';
demo.stdout.setEncoding('utf8');
demo.stdout.on('data', (s: string) => {
  out += s;
  process.stdout.write(s);
});
const exited = new Promise<number | null>((resolve) => demo.on('exit', (code) => resolve(code)));
const userDataDir = mkdtempSync(join(tmpdir(), 'nodenet-screenshot-'));
try {
  const kubeconfig = await waitFor(
    'the demo to play its story',
    () => (out.includes('Running until Ctrl-C') ? /export KUBECONFIG=(\S+)/.exec(out)?.[1] : undefined),
    300_000,
  );
  const client = new KubeClient(loadKubeConfig(kubeconfig));
  const dashboard = await startDashboard({
    clients: makeClients(client),
    address: '127.0.0.1',
    port: 0,
    waveLabel: 'rack',
  });
  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(dashboard.url);
    // The story's end: the bad revision is in the history as Invalid, and its node is back.
    await page.waitForFunction(() => document.querySelector('#timeline .result-Invalid') !== null);
    // Settled: the rollback done and counted (not the moment in between).
    await page.waitForFunction(() => document.querySelector('#phase[data-phase="Complete"]') !== null);
    // The node the bad revision failed on, rolled back: what `kubectl nodenet why` says of it.
    await page.click('#grid .cell[title*="rolled back"]');
    await page.waitForFunction(() => document.querySelector('#detail-why')?.textContent?.startsWith('Node:'));
    await page.screenshot({ path: OUT, fullPage: true });
    console.log(`saved ${OUT}`);
  } finally {
    await browser.close();
    await dashboard.stop();
    client.close();
  }
} finally {
  demo.kill('SIGINT');
  await exited;
  rmSync(userDataDir, { recursive: true, force: true });
}
