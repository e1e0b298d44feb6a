/**
 * deploy/ installed as shipped into devcluster with authorization and admission on
 * (`--authorization-mode RBAC`), and the identities its components get on a real cluster: a Pod
 * per component on its node (what the Deployment and DaemonSet controllers would create) and a
 * ServiceAccount token bound to that Pod from the TokenRequest API (`kubectl create token
 * --bound-object-kind Pod`), so an agent's token carries its node's name as kube-apiserver ≥ 1.30
 * puts it there. kubectl is the client for everything a person would type.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';
import { createNode } from '../../fleet/harness.js';

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
export const NS = 'nodenet-system';
export const AGENT_SA = 'nodenet-agent';
export const CONFIGURATOR_SA = 'nodenet-configurator';
export const saUser = (sa: string): string => `system:serviceaccount:${NS}:${sa}`;

/** kubectl's outcome: exit status, stdout and stderr (a refused request exits 1). */
export interface KubectlResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

export class RbacCluster {
  dc!: DevCluster;
  /** The admin's clients (system:masters), for setting up and reading state. */
  admin!: Clients;
  private adminClient!: KubeClient;
  readonly work = mkdtempSync(join(tmpdir(), 'nodenet-least-privilege-'));

  private ownsServer = false;

  /** Starts devcluster with RBAC (or uses `dc`, started so), then installs deploy/ into it. */
  async start(dc?: DevCluster): Promise<void> {
    this.ownsServer = !dc;
    this.dc = dc ?? (await startDevCluster({ crdsDir: join(repoRoot, 'crds'), authorizationMode: 'RBAC' }));
    this.adminClient = new KubeClient(loadKubeConfig(this.dc.kubeconfigPath));
    this.admin = makeClients(this.adminClient);
    // What a user runs: kustomize renders deploy/, kubectl applies it.
    const rendered = execFileSync('kubectl', ['kustomize', join(repoRoot, 'deploy')], { encoding: 'utf8' });
    const applied = await this.kubectl(['apply', '-f', '-'], { input: rendered });
    if (!applied.ok) throw new Error(`kubectl apply of deploy/ failed: ${applied.stderr}`);
  }

  /**
   * Runs kubectl as the admin, or with `kubeconfig`; never throws for a refused request. Async:
   * the API server runs in this process, so a synchronous child would block it.
   */
  kubectl(args: string[], opts: { kubeconfig?: string; input?: string } = {}): Promise<KubectlResult> {
    const child = spawn('kubectl', ['--kubeconfig', opts.kubeconfig ?? this.dc.kubeconfigPath, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.stdin.end(opts.input ?? '');
    return new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => resolve({ ok: code === 0, stdout, stderr }));
    });
  }

  /** A ready Node and the agent Pod the DaemonSet would run on it. */
  async addNode(name: string): Promise<void> {
    await createNode(this.admin, name);
    await this.createPod(`nodenet-agent-${name}`, AGENT_SA, name);
  }

  async createPod(name: string, serviceAccount: string, nodeName: string): Promise<void> {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: NS },
      spec: {
        serviceAccountName: serviceAccount,
        nodeName,
        containers: [{ name: 'main', image: 'nodenet' }],
      },
    };
    const r = await this.kubectl(['create', '-f', '-'], { input: JSON.stringify(pod) });
    if (!r.ok) throw new Error(`creating pod ${name}: ${r.stderr}`);
  }

  /** `kubectl create token` for the ServiceAccount, bound to the Pod; returns a kubeconfig with it. */
  async podTokenKubeconfig(serviceAccount: string, pod: string): Promise<string> {
    return this.dc.kubeconfigFor({ token: await this.podToken(serviceAccount, pod) });
  }

  /** `kubectl create token` for the ServiceAccount, bound to the Pod. */
  async podToken(serviceAccount: string, pod: string): Promise<string> {
    const r = await this.kubectl([
      'create',
      'token',
      serviceAccount,
      '-n',
      NS,
      '--bound-object-kind',
      'Pod',
      '--bound-object-name',
      pod,
      '--duration',
      '1h',
    ]);
    if (!r.ok) throw new Error(`kubectl create token ${serviceAccount}: ${r.stderr}`);
    return r.stdout.trim();
  }

  /** The kubeconfig of the agent on `node` (token bound to its Pod). */
  agentKubeconfig(node: string): Promise<string> {
    return this.podTokenKubeconfig(AGENT_SA, `nodenet-agent-${node}`);
  }

  async stop(): Promise<void> {
    this.adminClient?.close();
    if (this.ownsServer) await this.dc?.stop();
    rmSync(this.work, { recursive: true, force: true });
  }
}

export interface LoggedProcess {
  process: ChildProcess;
  /** Every line it printed (stdout and stderr). */
  lines: string[];
  stop(): Promise<void>;
}

/** The configurator binary as deploy/ runs it: its Lease in nodenet-system, its own identity. */
export function spawnConfigurator(kubeconfig: string): LoggedProcess {
  const child = spawn(
    process.execPath,
    [
      join(repoRoot, 'packages/configurator/dist/main.js'),
      '--kubeconfig',
      kubeconfig,
      '--update-limit',
      '1',
      // No soak (the default is 1m): this suite tests identities, not the soak.
      '--min-success-time',
      '0s',
      '--leader-election-namespace',
      NS,
      '--leader-election-lease-duration',
      '3s',
      '--leader-election-renew-deadline',
      '2s',
      '--leader-election-retry-period',
      '500ms',
      '--metrics-addr',
      '127.0.0.1:0',
      '--health-addr',
      '127.0.0.1:0',
      '--log-level',
      'info',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  const collect = (chunk: Buffer): void => {
    lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim() !== ''),
    );
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise((r) => child.once('exit', r));
  return {
    process: child,
    lines,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Lines that report a refused call (HTTP 401/403, Forbidden, Unauthorized). */
export const refusals = (lines: string[]): string[] =>
  lines.filter((l) => /\b40[13]\b|forbidden|unauthorized/i.test(l));
