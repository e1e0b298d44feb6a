/**
 * The writes of the agent's write pattern (agent-write-pattern.ts) besides its NodeConfig status
 * reports: the Node's NodenetReady condition, status.observed and the liveness Lease. Plain HTTP
 * requests on one keep-alive connection pool, so that a benchmark's simulated fleet of tens of
 * thousands of agents costs the harness little; the API server sees the requests the agent makes
 * (merge patches of the same fields).
 */
import http from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { GROUP, VERSION, NODENET_READY_CONDITION, type NodeConfigSpec } from '@nodenet/api';
import type { AgentWritePattern } from './agent-write-pattern.js';

export type PatternWriteKind = 'node-condition' | 'observed' | 'lease';

export class PatternWrites {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly base: URL;
  private readonly headers: Record<string, string>;
  /** Writes made, per kind (failed ones in `errors`). */
  readonly counts: Record<PatternWriteKind, number> = { 'node-condition': 0, observed: 0, lease: 0 };
  errors = 0;

  constructor(kc: KubeConfig) {
    const server = kc.getCurrentCluster()?.server;
    if (!server?.startsWith('http:'))
      throw new Error(`pattern writes need a plain-HTTP API server (devcluster), got ${server}`);
    this.base = new URL(server);
    const token = kc.getCurrentUser()?.token;
    this.headers = token ? { authorization: `Bearer ${token}` } : {};
  }

  /** The pattern's Node condition writes with these reasons, not waited for. */
  conditions(node: string, revision: string, reasons: string[] = []): void {
    for (const r of reasons) void this.nodeCondition(node, r, revision, new Date().toISOString());
  }

  /** After `provisioned`: the Node condition and the observed state (the host's VNIs changed). */
  afterApplied(node: string, spec: NodeConfigSpec, pattern: AgentWritePattern): void {
    this.conditions(node, spec.revision, pattern.nodeCondition.changing.slice(pattern.progress.length));
    const vnis = spec.layer2.map((l) => l.vni);
    if (pattern.observedAfterChange) void this.observed(node, vnis, new Date().toISOString());
  }

  /** The NodenetReady condition on the Node (nodes/status), as NodeConditionWriter writes it. */
  nodeCondition(node: string, reason: string, revision: string, now: string): Promise<boolean> {
    const at = now.replace(/\.\d{3}Z$/, 'Z');
    const ready = reason === 'Applied';
    const condition = {
      type: NODENET_READY_CONDITION,
      status: ready ? 'True' : 'False',
      reason,
      message: ready ? `revision ${revision.slice(0, 12)} is applied` : `${reason} ${revision.slice(0, 12)}`,
      lastHeartbeatTime: at,
      lastTransitionTime: at,
    };
    // Strategic merge keyed by condition type, as the agent writes it: the kubelet's conditions stay.
    return this.send('node-condition', 'PATCH', `/api/v1/nodes/${node}/status?fieldManager=nodenet-agent`, {
      body: { status: { conditions: [condition] } },
      contentType: 'application/strategic-merge-patch+json',
    });
  }

  /** status.observed after the host changed: the VNIs and BGP sessions the agent read from FRR. */
  observed(node: string, vnis: number[], at: string): Promise<boolean> {
    const observed = {
      frrVersion: '10.1',
      bgpSummary: '2/2',
      bgpSessions: ['eth0', 'eth1'].map((peer) => ({
        vrf: 'default',
        peer,
        state: 'Established',
        since: at,
      })),
      vniSummary: `${vnis.length}/${vnis.length}`,
      vnis: vnis.map((vni) => ({ vni, type: 'L2' as const, vxlanInterface: `vx${vni}` })),
    };
    return this.send('observed', 'PATCH', `/apis/${GROUP}/${VERSION}/nodeconfigs/${node}/status`, {
      body: { status: { observed } },
    });
  }

  /** Renews the node's liveness Lease (creates it the first time). */
  async lease(node: string, namespace: string, at: string): Promise<void> {
    const path = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`;
    const spec = { holderIdentity: node, leaseDurationSeconds: 40, renewTime: at.replace('Z', '000Z') };
    const ok = await this.send('lease', 'PATCH', `${path}/${node}`, { body: { spec }, quietly: [404] });
    if (!ok)
      await this.send('lease', 'POST', path, {
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: node, namespace },
          spec,
        },
      });
  }

  close(): void {
    this.agent.destroy();
  }

  /** One request; counts it and resolves true on success, false on failure (`quietly`: statuses not counted as errors, e.g. 404). */
  private send(
    kind: PatternWriteKind,
    method: string,
    path: string,
    o: { body: unknown; quietly?: number[]; contentType?: string },
  ): Promise<boolean> {
    const body = o.body;
    const quietly = o.quietly ?? [];
    const contentType =
      o.contentType ?? (method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
    const data = JSON.stringify(body);
    return new Promise((resolve) => {
      const req = http.request(
        {
          host: this.base.hostname,
          port: this.base.port,
          method,
          path,
          agent: this.agent,
          headers: {
            ...this.headers,
            'content-type': contentType,
            'content-length': Buffer.byteLength(data),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status < 300) this.counts[kind]++;
            else if (!quietly.includes(status)) this.errors++;
            resolve(status < 300);
          });
        },
      );
      req.on('error', () => {
        this.errors++;
        resolve(false);
      });
      req.end(data);
    });
  }
}
