/**
 * Runs the configured health checks and judges them against a baseline taken before the apply.
 *
 * Baseline semantics: the pipeline runs the checks once before it touches the host and once after.
 * A check that already failed before is reported (in the verdict and the status message) but not
 * held against the new config — the new config did not break it, and rolling back would not fix it.
 * Only checks that passed before and fail after (or are new) make the apply fail.
 */
import { describeCause } from '../errors.js';
import type { HealthConfig, TcpTarget } from './config.js';
import {
  linkIsUp,
  probeTcp,
  readLinksNetlink,
  type LinkState,
  type ReadLinks,
  type TcpAttempt,
} from './probes.js';

export interface CheckResult {
  /** Stable identifier: `interface/eth0`, `tcp/spine-1`, `apiserver`, `frr`, `bgp/default/10.0.0.1`. */
  name: string;
  ok: boolean;
  /** What was seen, for logs and status messages. */
  detail: string;
}

/**
 * Checks that the API server answers, on a fresh connection (no pooled keep-alive socket, so a dead
 * path is not hidden) within `timeoutMs`. Resolves when it answered at all — any HTTP status, even
 * 401/403, proves the path; rejects otherwise (keep the socket error as `cause` so a refused
 * connection can be recognised).
 */
export type ApiServerProbe = (timeoutMs: number) => Promise<void>;

/**
 * What FRR reports for the health check: whether it answered and the state of the asked-for BGP
 * sessions. Shaped so the FRR driver's `status({ sessions })` can be passed as the probe directly.
 */
export interface FrrHealth {
  answering: boolean;
  message?: string;
  sessions: { vrf: string; peer: string; state: string }[];
}
/** Asks FRR about the given sessions. Rejecting counts as "FRR does not answer". */
export type FrrProbe = (sessions: { peer: string; vrf: string }[]) => Promise<FrrHealth>;

export interface HealthProbes {
  readLinks?: ReadLinks;
  tcp?: (host: string, port: number, timeoutMs: number) => Promise<TcpAttempt>;
  apiServer?: ApiServerProbe;
  frr?: FrrProbe;
  sleep?: (ms: number) => Promise<void>;
}

export interface HealthVerdict {
  ok: boolean;
  results: CheckResult[];
  /** Failed now, passed (or did not exist) before: these fail the apply. */
  newFailures: CheckResult[];
  /** Failed now and already failed before the apply: reported only. */
  preexisting: CheckResult[];
  /** One line for logs and status messages. */
  summary: string;
}

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class HealthChecker {
  private readonly readLinks: ReadLinks;
  private readonly tcp: NonNullable<HealthProbes['tcp']>;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    readonly config: HealthConfig,
    private readonly probes: HealthProbes = {},
  ) {
    if (config.apiServer.enabled && !probes.apiServer) {
      throw new Error('HealthChecker: apiServer check enabled but no API server probe was given');
    }
    if (config.frr.enabled && !probes.frr) {
      throw new Error('HealthChecker: frr check enabled but no FRR probe was given');
    }
    this.readLinks = probes.readLinks ?? readLinksNetlink;
    this.tcp = probes.tcp ?? probeTcp;
    this.sleep = probes.sleep ?? realSleep;
  }

  /** Runs every configured check concurrently; never rejects (a probe error is a failed check). */
  async run(): Promise<CheckResult[]> {
    const groups = await Promise.all([
      this.checkInterfaces(),
      Promise.all(this.config.tcp.map((t) => this.checkTcp(t))),
      this.checkApiServer(),
      this.checkFrr(),
    ]);
    return groups.flat();
  }

  private async checkInterfaces(): Promise<CheckResult[]> {
    if (this.config.interfaces.length === 0) return [];
    let links: Map<string, LinkState>;
    try {
      links = await this.readLinks();
    } catch (err) {
      const detail = `cannot read links: ${describeCause(err)}`;
      return this.config.interfaces.map((name) => ({ name: `interface/${name}`, ok: false, detail }));
    }
    return this.config.interfaces.map((name) => {
      const link = links.get(name);
      if (!link) return { name: `interface/${name}`, ok: false, detail: 'does not exist' };
      const ok = linkIsUp(link);
      const flags = `${link.adminUp ? 'UP' : 'down'},${link.lowerUp ? 'LOWER_UP' : 'no-carrier'}`;
      return { name: `interface/${name}`, ok, detail: `operstate ${link.operstate} (${flags})` };
    });
  }

  private async checkTcp(target: TcpTarget): Promise<CheckResult> {
    const name = `tcp/${target.name ?? `${target.host}:${target.port}`}`;
    const attempts = target.retries + 1;
    let last: TcpAttempt = { outcome: 'error', detail: 'not tried' };
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await this.sleep(target.retryDelayMs);
      last = await this.tcp(target.host, target.port, target.timeoutMs);
      if (last.outcome === 'connected') return { name, ok: true, detail: `connected (attempt ${i + 1})` };
      if (last.outcome === 'refused' && target.refusedIsReachable) {
        return {
          name,
          ok: true,
          detail: `connection refused: host reachable, service down (attempt ${i + 1})`,
        };
      }
    }
    return { name, ok: false, detail: `${last.detail} after ${attempts} attempt(s)` };
  }

  private async checkApiServer(): Promise<CheckResult[]> {
    const { apiServer } = this.config;
    if (!apiServer.enabled || !this.probes.apiServer) return [];
    let lastError: unknown;
    for (let i = 0; i <= apiServer.retries; i++) {
      if (i > 0) await this.sleep(API_RETRY_PAUSE_MS);
      try {
        await this.probes.apiServer(apiServer.timeoutMs);
        return [{ name: 'apiserver', ok: true, detail: `answered (attempt ${i + 1})` }];
      } catch (err) {
        // Unlike a TCP target, a refused connection is a failure: the RST may come from this node
        // itself (a change put the API server's address on a local device). Only an answer counts.
        lastError = err;
      }
    }
    return [
      {
        name: 'apiserver',
        ok: false,
        detail: `${describeCause(lastError)} after ${apiServer.retries + 1} attempt(s)`,
      },
    ];
  }

  private async checkFrr(): Promise<CheckResult[]> {
    const { frr } = this.config;
    if (!frr.enabled || !this.probes.frr) return [];
    let status: FrrHealth;
    try {
      status = await this.probes.frr(frr.bgpSessions);
    } catch (err) {
      status = { answering: false, message: describeCause(err), sessions: [] };
    }
    if (!status.answering) {
      const detail = `FRR does not answer: ${status.message ?? 'no answer'}`;
      return [
        { name: 'frr', ok: false, detail },
        ...frr.bgpSessions.map((s) => ({ name: `bgp/${s.vrf}/${s.peer}`, ok: false, detail })),
      ];
    }
    const results: CheckResult[] = [{ name: 'frr', ok: true, detail: 'answered' }];
    for (const session of frr.bgpSessions) {
      const peer = status.sessions.find((p) => p.peer === session.peer && p.vrf === session.vrf);
      const name = `bgp/${session.vrf}/${session.peer}`;
      if (!peer || peer.state === 'NotConfigured')
        results.push({ name, ok: false, detail: 'no such BGP neighbor' });
      else results.push({ name, ok: peer.state === 'Established', detail: `state ${peer.state}` });
    }
    return results;
  }
}

const API_RETRY_PAUSE_MS = 200;

/**
 * Judges the results after an apply. `baseline` is the run before the apply (undefined when there
 * was none, e.g. when re-checking after a restore: then every failure counts).
 */
export function judge(after: CheckResult[], baseline?: CheckResult[]): HealthVerdict {
  const failedBefore = new Set((baseline ?? []).filter((r) => !r.ok).map((r) => r.name));
  const failed = after.filter((r) => !r.ok);
  const newFailures = failed.filter((r) => !failedBefore.has(r.name));
  const preexisting = failed.filter((r) => failedBefore.has(r.name));
  const parts: string[] = [];
  // No "failed:" prefix: the pipeline's message already reads "health check failed: …".
  if (newFailures.length > 0) parts.push(newFailures.map(describe).join('; '));
  if (preexisting.length > 0)
    parts.push(`already failing before the apply: ${preexisting.map(describe).join('; ')}`);
  const summary =
    parts.length > 0
      ? parts.join('; ')
      : after.length > 0
        ? `all ${after.length} checks passed`
        : 'no checks configured';
  return { ok: newFailures.length === 0, results: after, newFailures, preexisting, summary };
}

const describe = (r: CheckResult): string => `${r.name} (${r.detail})`;
