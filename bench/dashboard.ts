/**
 * `npm run bench dashboard` (issue 42): `kubectl nodenet dashboard` at 5,000 nodes (100 racks) on
 * devcluster. The server runs in its own process; Debian's chromium (playwright-core) opens the page.
 * Figures: the page's first render (navigation to every cell drawn), an update (500 Nodes turn
 * NotReady: from the last write until the page shows all 500 unavailable), and the server's RSS
 * after each. Targets: render and update under 1 s, RSS under 150 MiB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startDevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients, parallel } from '@nodenet/kube';
import { CRDS_DIR, nodeName, setNodeReady, writeProvisionedFleet } from '@nodenet/testkit';

// What the functions run in the page see (compiled without the DOM library).
declare const document: { querySelectorAll(selector: string): { length: number } };

const NODES = 5000;
const RACKS = 100;
const CHANGED = 500;
const CHROMIUM = '/usr/bin/chromium';
const BIN = fileURLToPath(new URL('../packages/cli/bin/kubectl-nodenet.js', import.meta.url));

if (!existsSync(CHROMIUM)) {
  console.log(`dashboard: skipped (needs ${CHROMIUM}: apt-get install chromium)`);
  process.exit(0);
}

const rssMiB = (pid: number): number => {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return kb / 1024;
};

const dc = await startDevCluster({ crdsDir: CRDS_DIR });
const client = new KubeClient(loadKubeConfig(dc.kubeconfigPath));
const clients = makeClients(client);
let server: ChildProcess | undefined;
const userDataDir = mkdtempSync(join(tmpdir(), 'nodenet-bench-chromium-'));
try {
  let t = performance.now();
  await writeProvisionedFleet(clients, { nodes: NODES, racks: RACKS });
  console.log(`fleet of ${NODES} nodes written in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  // Start the server only now (its first list is the whole fleet), as kubectl runs it: the binary
  // itself, with the V8 flags of its #! line.
  server = spawn(
    BIN,
    ['--kubeconfig', dc.kubeconfigPath, 'dashboard', '--port', '0', '--wave-label', 'rack'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  server.stdout!.setEncoding('utf8');
  let out = '';
  server.stdout!.on('data', (s: string) => (out += s));
  t = performance.now();
  const url = await new Promise<string>((resolve, reject) => {
    const poll = setInterval(() => {
      const m = /Dashboard: (\S+)/.exec(out);
      if (m) {
        clearInterval(poll);
        resolve(m[1]!);
      }
      if (server?.exitCode !== null) reject(new Error(`dashboard exited ${server?.exitCode}`));
    }, 20);
  });
  console.log(
    `server synced and listening in ${((performance.now() - t) / 1000).toFixed(2)} s, RSS ${rssMiB(server.pid!).toFixed(0)} MiB`,
  );

  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1600, height: 1000 },
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
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    t = performance.now();
    await page.goto(url);
    await page.waitForFunction((n) => document.querySelectorAll('#grid .cell').length === n, NODES, {
      polling: 10,
    });
    const firstRender = performance.now() - t;
    console.log(
      `first render of ${NODES} cells: ${firstRender.toFixed(0)} ms (target < 1000), server RSS ${rssMiB(server.pid!).toFixed(0)} MiB`,
    );

    await parallel(
      Array.from({ length: CHANGED }, (_, i) => nodeName(i * (NODES / CHANGED))),
      32,
      async (node) => {
        await setNodeReady(clients, node, false);
      },
    );
    t = performance.now();
    await page.waitForFunction(
      (n) => document.querySelectorAll('#grid .cell[data-state="unavailable"]').length === n,
      CHANGED,
      { polling: 10 },
    );
    const update = performance.now() - t;
    console.log(
      `update (${CHANGED} nodes NotReady, last write → shown): ${update.toFixed(0)} ms (target < 1000), server RSS ${rssMiB(server.pid!).toFixed(0)} MiB (target < 150)`,
    );
  } finally {
    await browser.close();
  }
} finally {
  server?.kill('SIGTERM');
  client.close();
  await dc.stop();
  rmSync(userDataDir, { recursive: true, force: true });
}
