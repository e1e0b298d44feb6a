/**
 * `npm start`: a local nodenet on devcluster. Starts the API server, the configurator binary and one
 * agent per node (real agents in network namespaces with real FRR when the machine allows it,
 * simulated ones otherwise), plays a short story that checks each step, prints the commands to look
 * around, and runs until Ctrl-C. `--once` plays the story and exits: 0 when every step happened.
 * Everything it creates (processes, namespaces, FRR instances, temp files) is removed on exit; its
 * logs are kept in demo-logs/ (the last LOG_RUNS_KEPT runs).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConfig } from '@nodenet/api';
import { Command, Option } from 'commander';
import { NodeConfigWatch, applyFile } from './resources.js';
import {
  emptyFootprint,
  leftoverLines,
  mergeFootprints,
  onInterrupt,
  stillPresent,
  summary,
  type Footprint,
} from './shutdown.js';
import { realAgentsPossible, realStage, simulatedStage, vrfSupported, type Stage } from './stage.js';
import { inputsFromFiles, playStory, type StoryResult } from './story.js';
import { decideVm, runDemoInVm, vmFacts, type VmPlan } from './vm.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const examples = (f: string): string => join(repo, 'examples', f);
const UPDATE_LIMIT = 1;
const WAVE_LABEL = 'rack';
/** Log folders of this many runs stay in demo-logs/; older ones are removed at start. */
const LOG_RUNS_KEPT = 10;

const program = new Command('npm start --')
  .description(
    'Local nodenet demo on devcluster: configurator + one agent per node; a good change rolls out under the ' +
      'update limit, a bad one fails on the first node, the rollout halts and that node is rolled back.',
  )
  .option(
    '--once',
    'play the story and exit (non-zero when a step did not happen) instead of running until Ctrl-C',
  )
  .addOption(
    new Option(
      '--agents <mode>',
      'real: agent binaries in network namespaces with FRR (root); simulated; auto',
    )
      .choices(['auto', 'real', 'simulated'])
      .default('auto'),
  )
  .option(
    '--vm',
    "play the story once in a QEMU VM with Debian's kernel (VRF works there), real agents; for a machine whose kernel has no VRF",
  )
  // Set by --vm for the demo inside the guest: logs to this folder (the checkout is read-only
  // there), and the longer timeouts of software emulation.
  .addOption(new Option('--in-vm <logs>').hideHelp())
  .parse();
const flags = program.opts<{
  once?: boolean;
  agents: 'auto' | 'real' | 'simulated';
  vm?: boolean;
  inVm?: string;
}>();
/** Under emulation code runs several times slower: a step, and an agent's apply, get longer. */
const SLOW = flags.inVm !== undefined;

const log = (line: string): void => void process.stdout.write(line + '\n');
const cleanups: (() => Promise<void> | void)[] = [];
/** What the demo has created so far (for "removed: …" and, on a second Ctrl-C, "left: …"). */
const footprints: (() => Footprint)[] = [];
const footprint = (): Footprint => mergeFootprints(emptyFootprint(), ...footprints.map((f) => f()));
let logDir: string | undefined;
const logsLine = (): string => (logDir ? `logs kept: ${shownDir(logDir)}` : 'no logs were written');
/** A folder as a user finds it: relative to here; in the VM, its guest path (copied out at the end). */
const shownDir = (dir: string): string => (flags.inVm ? dir : relative(process.cwd(), dir) || dir);

let stopping: Promise<never> | undefined;
/** Removes everything in reverse order of creation, says what went and what stayed, and exits. */
const finish = (code: number): Promise<never> =>
  (stopping ??= (async () => {
    const created = footprint();
    for (const c of cleanups.reverse())
      await Promise.resolve(c()).catch((e: unknown) => log(`cleanup: ${String(e)}`));
    const left = stillPresent(created);
    const gone: Footprint = {
      namespaces: created.namespaces.filter((n) => !left.namespaces.includes(n)),
      pids: created.pids.filter((p) => !left.pids.some((q) => q.pid === p.pid)),
      dirs: created.dirs.filter((d) => !left.dirs.includes(d)),
    };
    log(`removed: ${summary(gone)}`);
    const lines = leftoverLines(left);
    if (lines.length > 0) log(['left behind:', ...lines].join('\n'));
    log(
      `demo stopped; ${lines.length === 0 ? 'everything it created is removed' : 'some of what it created is left (above)'}; ${logsLine()}`,
    );
    process.exit(code);
  })());

onInterrupt(
  () => finish(130).then(() => undefined),
  () => {
    const lines = leftoverLines(stillPresent(footprint()));
    log(
      [
        // On its own line: the terminal echoed ^C where the cursor was.
        '\nCtrl-C again: exiting at once.',
        ...(lines.length ? ['left behind (remove by hand):', ...lines] : ['nothing of the demo is left']),
        logsLine(),
      ].join('\n'),
    );
    process.exit(130);
  },
);

/** A fresh folder demo-logs/<UTC time>/ for this run; older runs beyond LOG_RUNS_KEPT are removed. */
function newLogDir(): string {
  const root = flags.inVm ?? join(repo, 'demo-logs');
  mkdirSync(root, { recursive: true });
  const runs = readdirSync(root).sort();
  for (const old of runs.slice(0, Math.max(0, runs.length - (LOG_RUNS_KEPT - 1))))
    rmSync(join(root, old), { recursive: true, force: true });
  const dir = join(root, `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
  mkdirSync(dir);
  return dir;
}

async function main(): Promise<number> {
  const files = {
    nodes: examples('nodes.yaml'),
    good: examples('layer2-networks.yaml'),
    bad: examples('bad-change.yaml'),
  };
  const goodHash = buildConfig(inputsFromFiles([files.good])).hash;
  const badHash = buildConfig(inputsFromFiles([files.good, files.bad])).hash;

  if (flags.vm) return inVm();
  const mode = agentsMode();
  if (!mode) return 2;
  const vrf = mode === 'real' ? vrfSupported() : { ok: true, why: 'simulated agents' };
  if (!vrf.ok) log(noVrf(vrf.why, decideVm(vmFacts())));

  // Logs first, so a failing start-up leaves them too; kept after exit, whatever happened.
  logDir = newLogDir();
  log(
    `logs: ${shownDir(logDir)} (configurator.log${mode === 'real' ? ', agent-<node>.log, frr-<node>-*.log' : ''}; kept after exit)`,
  );
  const stage: Stage =
    mode === 'real' ? await realStage(logDir) : await simulatedStage(join(repo, 'crds'), badHash);
  footprints.push(() => stage.footprint());
  cleanups.push(() => stage.tearDown());

  const nodes = (await applyFile(stage.clients, files.nodes)).map((n) => n.replace(/^node\//, ''));
  for (const n of nodes) await stage.addNode(n);
  const configuratorLog = join(logDir, 'configurator.log');
  const configurator = startConfigurator(stage.kubeconfigPath, configuratorLog);
  footprints.push(() => ({
    namespaces: [],
    pids:
      configurator.pid !== undefined
        ? [{ pid: configurator.pid, what: 'configurator', kind: 'configurator' }]
        : [],
    dirs: [],
  }));
  cleanups.push(() => stopProcess(configurator));
  stage.startAgents();
  const watch = new NodeConfigWatch(stage.clients);
  await watch.start();
  cleanups.push(() => watch.stop());
  log(
    `devcluster: ${nodes.length} nodes (${nodes.join(', ')}); configurator --update-limit ${UPDATE_LIMIT} --wave-label ${WAVE_LABEL}`,
  );
  log(`kubeconfig: ${stage.kubeconfigPath}`);
  for (const h of stage.hostHints()) log(h);
  log('');

  const story = await playStory(
    {
      stage,
      files,
      nodes,
      updateLimit: UPDATE_LIMIT,
      goodHash,
      badHash,
      timeoutMs: SLOW ? 900_000 : mode === 'real' ? 120_000 : 60_000,
      log,
    },
    watch,
  );
  const failed = story.steps.filter((r) => !r.ok);
  log(failed.length === 0 ? 'story: every step happened' : `story: ${failed.length} step(s) did not happen`);
  if (flags.once) return failed.length === 0 ? 0 : 1;

  log(lookAround(stage.kubeconfigPath, story, configuratorLog));
  // Runs until Ctrl-C: onInterrupt (shutdown.ts) stops it.
  return new Promise<number>(() => undefined);
}

/** Real agents when asked for or possible (auto), else simulated; undefined when real ones were asked for and are not possible. */
function agentsMode(): 'real' | 'simulated' | undefined {
  const possible = realAgentsPossible();
  if (flags.agents === 'real' && !possible.ok) {
    log(`--agents real: not possible here: ${possible.why}`);
    return undefined;
  }
  const mode = flags.agents === 'auto' ? (possible.ok ? 'real' : 'simulated') : flags.agents;
  log(
    mode === 'real'
      ? `agents: real nodenet-agent processes, one network namespace and FRR instance per node (${possible.why})`
      : `agents: simulated (${flags.agents === 'simulated' ? 'asked for with --agents simulated' : `real agents need root, iproute2 and FRR: ${possible.why}`})`,
  );
  return mode;
}

/** `--vm`: the story once in a VM (demo/vm.ts), its logs copied to a new log folder here. */
async function inVm(): Promise<number> {
  const plan = decideVm(vmFacts());
  if (!plan.ok) {
    log(plan.why);
    return 2;
  }
  logDir = newLogDir();
  const abort = new AbortController();
  cleanups.push(() => abort.abort());
  return runDemoInVm(plan, { repo, logDir, log, signal: abort.signal });
}

/** Said at start-up on a kernel without VRF, before anything can fail because of it. */
function noVrf(why: string, vm: VmPlan): string {
  return [
    `kernel: no VRF support (CONFIG_NET_VRF): ${why}.`,
    '  The story (Layer-2 networks) works. What needs a VRF fails on the first node it reaches, and is then',
    "  marked invalid and rolled back (safely): examples/routing-table.yaml, examples/vrf.yaml, a VRF's",
    "  loopbacks and static routes, VRF BGP peerings. Use a kernel with VRF (e.g. Debian's), or",
    vm.ok
      ? '  `npm start -- --vm` (the story in a VM with such a kernel, here), or `npm start -- --agents simulated`, to try them.'
      : `  \`npm start -- --agents simulated\`, to try them (\`npm start -- --vm\` is not possible here: ${vm.why}).`,
  ].join('\n');
}

/** What to try in another terminal while the demo keeps running. */
function lookAround(kubeconfigPath: string, story: StoryResult, configuratorLog: string): string {
  const plugin = join(repo, 'node_modules', '.bin');
  return [
    '',
    'Look around (in another terminal):',
    `  export KUBECONFIG=${kubeconfigPath}`,
    `  export PATH=${plugin}:$PATH      # puts kubectl-nodenet on the PATH: kubectl nodenet …`,
    '  kubectl get nodes,ncr,nc',
    '  kubectl get layer2',
    '  kubectl describe ncr                  # conditions, failedNodes, Events',
    `  kubectl nodenet status --wave-label ${WAVE_LABEL}`,
    '  kubectl nodenet nodes',
    '  kubectl nodenet history',
    `  kubectl nodenet dashboard --wave-label ${WAVE_LABEL}   # the fleet live in the browser (prints its URL)`,
    ...(story.good && story.bad
      ? [`  kubectl nodenet diff ${story.good} ${story.bad}   # what the bad revision did to each node`]
      : []),
    '  kubectl nodenet diff -f examples/routing-table.yaml   # preview a change per node before applying it',
    '  kubectl apply -f examples/routing-table.yaml          # roll it out (real agents need a kernel with VRF)',
    '  kubectl nodenet retry --yes            # try the bad revision again (it fails again)',
    `  less ${configuratorLog}   # and agent-<node>.log beside it with real agents`,
    '',
    'Running until Ctrl-C; everything it created is removed on exit, its logs are kept.',
  ].join('\n');
}

function startConfigurator(kubeconfig: string, logFile: string): ChildProcess {
  const out = openSync(logFile, 'a');
  return spawn(
    process.execPath,
    [
      join(repo, 'packages/configurator/dist/main.js'),
      ...['--kubeconfig', kubeconfig, '--update-limit', String(UPDATE_LIMIT), '--wave-label', WAVE_LABEL],
      ...['--max-failures', '0', '--preconfig-timeout', SLOW ? '10m' : '1m'],
      ...['--config-timeout', SLOW ? '10m' : '1m'],
      // A short soak keeps the demo quick (the default 1m covers a real node lifecycle grace period).
      ...['--min-success-time', '5s'],
      ...['--leader-election-namespace', 'default', '--leader-election-lease-duration', '3s'],
      ...['--leader-election-renew-deadline', '2s', '--leader-election-retry-period', '500ms'],
      ...[
        '--metrics-addr',
        '127.0.0.1:0',
        '--health-addr',
        '127.0.0.1:0',
        '--identity',
        'demo',
        '--log-level',
        'info',
      ],
    ],
    // Its own process group: a terminal's Ctrl-C reaches the demo alone, which stops it in order.
    { stdio: ['ignore', out, out], detached: true },
  );
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
}

main()
  .then((code) => finish(code))
  .catch((err: unknown) => {
    // A stop under way tears down what the story works with: its errors are not the demo's.
    if (stopping) return;
    log(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return finish(1);
  });
