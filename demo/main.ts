/**
 * `npm start`: a local nodenet on devcluster. Starts the API server, the configurator binary and one
 * agent per node (real agents in network namespaces with real FRR when the machine allows it,
 * simulated ones otherwise), plays a short story that checks each step, prints the commands to look
 * around, and runs until Ctrl-C. `--once` plays the story and exits: 0 when every step happened.
 * Everything it creates (processes, namespaces, FRR instances, temp files) is removed on exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConfig } from '@nodenet/api';
import { Command, Option } from 'commander';
import { NodeConfigWatch, applyFile } from './resources.js';
import { realAgentsPossible, realStage, simulatedStage, type Stage } from './stage.js';
import { inputsFromFiles, playStory, type StoryResult } from './story.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const examples = (f: string): string => join(repo, 'examples', f);
const UPDATE_LIMIT = 1;
const WAVE_LABEL = 'rack';

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
  .parse();
const flags = program.opts<{ once?: boolean; agents: 'auto' | 'real' | 'simulated' }>();

const log = (line: string): void => void process.stdout.write(line + '\n');
/** Keep the log folder after exit: set when a step did not happen or the demo failed. */
let keepLogs = false;
const cleanups: (() => Promise<void> | void)[] = [];
let cleaning: Promise<void> | undefined;
const cleanUp = (): Promise<void> =>
  (cleaning ??= (async () => {
    for (const c of cleanups.reverse())
      await Promise.resolve(c()).catch((e: unknown) => log(`cleanup: ${String(e)}`));
  })());

async function main(): Promise<number> {
  const files = {
    nodes: examples('nodes.yaml'),
    good: examples('layer2-networks.yaml'),
    bad: examples('bad-change.yaml'),
  };
  const goodHash = buildConfig(inputsFromFiles([files.good])).hash;
  const badHash = buildConfig(inputsFromFiles([files.good, files.bad])).hash;

  const mode = agentsMode();
  if (!mode) return 2;

  // Logs first, so a failing start-up leaves them too: printed now, kept until exit (and after it
  // when a step did not happen, so the reason can still be read).
  const logDir = mkdtempSync(join(tmpdir(), 'nodenet-demo-logs-'));
  log(`logs: ${logDir} (configurator.log${mode === 'real' ? ', agent-<node>.log' : ''})`);
  cleanups.push(() => {
    if (keepLogs) log(`logs kept: ${logDir} (remove with: rm -r ${logDir})`);
    else rmSync(logDir, { recursive: true, force: true });
  });
  const stage: Stage =
    mode === 'real' ? await realStage(logDir) : await simulatedStage(join(repo, 'crds'), badHash);
  cleanups.push(() => stage.tearDown());

  const nodes = (await applyFile(stage.clients, files.nodes)).map((n) => n.replace(/^node\//, ''));
  for (const n of nodes) await stage.addNode(n);
  const configuratorLog = join(logDir, 'configurator.log');
  const configurator = startConfigurator(stage.kubeconfigPath, configuratorLog);
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
      timeoutMs: mode === 'real' ? 120_000 : 60_000,
      log,
    },
    watch,
  );
  const failed = story.steps.filter((r) => !r.ok);
  keepLogs = failed.length > 0;
  log(failed.length === 0 ? 'story: every step happened' : `story: ${failed.length} step(s) did not happen`);
  if (flags.once) return failed.length === 0 ? 0 : 1;

  log(lookAround(stage.kubeconfigPath, story, configuratorLog));
  process.off('SIGINT', interrupted);
  process.off('SIGTERM', interrupted);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  return failed.length === 0 ? 0 : 1;
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
    'Running until Ctrl-C; everything is removed on exit.',
  ].join('\n');
}

function startConfigurator(kubeconfig: string, logFile: string): ChildProcess {
  const out = openSync(logFile, 'a');
  return spawn(
    process.execPath,
    [
      join(repo, 'packages/configurator/dist/main.js'),
      ...['--kubeconfig', kubeconfig, '--update-limit', String(UPDATE_LIMIT), '--wave-label', WAVE_LABEL],
      ...['--max-failures', '0', '--preconfig-timeout', '1m', '--config-timeout', '1m'],
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
    { stdio: ['ignore', out, out] },
  );
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
}

// Ctrl-C during the story: clean up and leave with 130.
const interrupted = (): void => {
  void cleanUp().then(() => process.exit(130));
};
process.once('SIGINT', interrupted);
process.once('SIGTERM', interrupted);

main()
  .then(async (code) => {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await cleanUp();
    log('demo stopped; everything it created is removed');
    process.exit(code);
  })
  .catch(async (err: unknown) => {
    log(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    keepLogs = true;
    await cleanUp();
    process.exit(1);
  });
