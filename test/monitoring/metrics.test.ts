/**
 * deploy/monitoring names only metrics the components export: every `nodenet_*` series in the Grafana
 * dashboard and the PrometheusRule exists on /metrics of the configurator binary (run against
 * devcluster until it has planned a pass) and of the agent's metrics endpoint (its registry and HTTP
 * server, as nodenet-agent serves them), and every label value an expression selects on is one the
 * component really exports.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentMetrics } from '@nodenet/agent';
import { createEndpointServer, listen } from '@nodenet/kube';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MONITORING = path.join(ROOT, 'deploy/monitoring');

interface Exposition {
  /** Family name → type (counter, gauge, histogram…). */
  families: Map<string, string>;
  /** Family name → label → values seen in samples. */
  labels: Map<string, Map<string, Set<string>>>;
}

function parseExposition(text: string): Exposition {
  const families = new Map<string, string>();
  const labels = new Map<string, Map<string, Set<string>>>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) families.set(type[1]!, type[2]!);
    const sample = /^([a-zA-Z_:][\w:]*)\{([^}]*)\} /.exec(line);
    if (!sample) continue;
    const byLabel = labels.get(sample[1]!) ?? new Map<string, Set<string>>();
    labels.set(sample[1]!, byLabel);
    for (const m of sample[2]!.matchAll(/(\w+)="([^"]*)"/g)) {
      const set = byLabel.get(m[1]!) ?? new Set<string>();
      set.add(m[2]!);
      byLabel.set(m[1]!, set);
    }
  }
  return { families, labels };
}

/** Every PromQL expression of the dashboard and the alerts, with where it comes from. */
function expressions(): { where: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(path.join(MONITORING, 'dashboard.json'), 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  const rules = parse(readFileSync(path.join(MONITORING, 'alerts.yaml'), 'utf8')) as {
    spec: { groups: { rules: { alert: string; expr: string }[] }[] };
  };
  return [
    ...dashboard.panels.flatMap((p) =>
      (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr })),
    ),
    ...rules.spec.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr }))),
  ];
}

/** The family a series name belongs to (histograms export _bucket, _sum and _count). */
function familyOf(name: string, exp: Exposition): string | undefined {
  if (exp.families.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return exp.families.get(base) === 'histogram' ? base : undefined;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

let dc: DevCluster;
let configurator: ResultPromise | undefined;
let merged: Exposition;

describe('deploy/monitoring', () => {
  beforeAll(async () => {
    await execa('npx', ['tsc', '-b', 'packages/configurator'], { cwd: ROOT });
    dc = await startDevCluster({ crdsDir: path.join(ROOT, 'crds') });
    const port = await freePort();
    const addr = `127.0.0.1:${port}`;
    configurator = execa(
      'node',
      [
        'packages/configurator/dist/main.js',
        ...['--kubeconfig', dc.kubeconfigPath, '--metrics-addr', addr, '--health-addr', addr],
        ...['--leader-election-namespace', 'default', '--leader-election-lease-duration', '3s'],
        ...[
          '--leader-election-renew-deadline',
          '2s',
          '--leader-election-retry-period',
          '500ms',
          '--log-level',
          'warn',
        ],
      ],
      { cwd: ROOT, reject: false },
    );
    // Scrape until the leader has planned a pass: the per-state gauges then carry their labels.
    let configuratorText = '';
    const deadline = performance.now() + 60_000;
    while (performance.now() < deadline && !configuratorText.includes('nodenet_configurator_nodes{')) {
      configuratorText = await fetch(`http://${addr}/metrics`).then(
        (r) => r.text(),
        () => '',
      );
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(configuratorText).toContain('nodenet_configurator_nodes{');

    const agentMetrics = new AgentMetrics({ processMetrics: true });
    const server = createEndpointServer({ metrics: agentMetrics.registry });
    const { port: agentPort } = await listen(server, { host: '127.0.0.1', port: 0 });
    const agentText = await (await fetch(`http://127.0.0.1:${agentPort}/metrics`)).text();
    await new Promise((r) => server.close(r));

    merged = parseExposition(`${configuratorText}\n${agentText}`);
  }, 120_000);

  afterAll(async () => {
    configurator?.kill('SIGTERM');
    await configurator;
    await dc?.stop();
  });

  it('every nodenet metric named by the dashboard and the alerts is exported', () => {
    const named = expressions().flatMap(({ where, expr }) =>
      [...expr.matchAll(/\b(nodenet_[a-z0-9_]+)/g)].map((m) => ({ where, name: m[1]! })),
    );
    expect(named.length).toBeGreaterThan(20);
    const missing = named.filter(({ name }) => !familyOf(name, merged)).map((n) => `${n.where}: ${n.name}`);
    expect(missing).toEqual([]);
  });

  it('every label value the expressions select on is one the configurator exports', () => {
    const wrong: string[] = [];
    for (const { where, expr } of expressions()) {
      for (const m of expr.matchAll(/\b(nodenet_[a-z0-9_]+)\{([^}]*)\}/g)) {
        const seen = merged.labels.get(m[1]!);
        if (!seen) continue; // a counter not yet incremented exports no samples to compare with
        for (const [, label, op, value] of m[2]!.matchAll(/(\w+)\s*(=~|=)\s*"([^"]*)"/g)) {
          for (const v of op === '=~' ? value!.split('|') : [value!])
            if (!seen.get(label!)?.has(v)) wrong.push(`${where}: ${m[1]}{${label}="${v}"}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the alerts cover what operators asked for', () => {
    const rules = parse(readFileSync(path.join(MONITORING, 'alerts.yaml'), 'utf8')) as {
      spec: { groups: { rules: { alert: string }[] }[] };
    };
    expect(rules.spec.groups.flatMap((g) => g.rules.map((r) => r.alert))).toEqual(
      expect.arrayContaining([
        'NodenetRevisionInvalid',
        'NodenetRolloutSlow',
        'NodenetNodeFailed',
        'NodenetDriftRepairedRepeatedly',
        'NodenetAgentNotReporting',
      ]),
    );
  });
});
