/**
 * Child process of bench/fleet.ts and bench/fleet-scale.ts: the simulated agents of the whole
 * fleet, so that their watch stream, JSON parsing and status writes do not share an event loop with
 * the configurator. They use one shared NodeConfig watch for all nodes (a real agent watches only
 * its own NodeConfig with fieldSelector metadata.name=<node>; one watch for the simulated agents
 * keeps the harness light, and the configurator's side of the protocol is identical). Each agent
 * writes what the real agent writes (packages/testkit/src/fleet/agent-liveness.ts): `provisioning`,
 * a liveness Lease renewal every `heartbeatMs` while it works (time-compressed with the latency),
 * then after the simulated apply latency `provisioned`, through /status like the real agent; with
 * {pattern} it plays the real agent's whole write pattern (AGENT_WRITE_PATTERN: liveness, observed
 * state, Node condition) on a clock `factor` times faster.
 * Protocol (IPC): parent sends {start, kubeconfigPath, latencyMs, heartbeatMs?}; child answers {ready};
 * parent sends {pattern, factor} (answer {patternOn}); {report}; child answers {report, writes,
 * leaseRenewals, writeErrors, patternWrites, cpu}; parent sends {stop}.
 */
import { AGENT_WRITE_PATTERN, SimulatedAgents, compressed } from '@nodenet/testkit';

type Msg =
  | { type: 'start'; kubeconfigPath: string; latencyMs: number; heartbeatMs?: number }
  | { type: 'pattern'; factor: number }
  | { type: 'report'; summary?: boolean }
  | { type: 'stop' };

let agents: SimulatedAgents | undefined;
const send = (m: unknown): void => {
  process.send?.(m);
};

process.on('message', (m: Msg) => {
  void (async () => {
    if (m.type === 'start') {
      agents = new SimulatedAgents({
        kubeconfigPath: m.kubeconfigPath,
        defaultDelayMs: m.latencyMs,
        ...(m.heartbeatMs !== undefined ? { liveness: { heartbeatMs: m.heartbeatMs } } : {}),
      });
      await agents.start();
      send({ type: 'ready' });
    } else if (m.type === 'pattern') {
      agents?.playPattern(compressed(AGENT_WRITE_PATTERN, m.factor));
      send({ type: 'patternOn' });
    } else if (m.type === 'report') {
      send({
        type: 'report',
        // A summary (counts only) for fleets whose write records would be a large message.
        writes: m.summary ? [] : (agents?.writes ?? []),
        writeCount: agents?.writes.length ?? 0,
        leaseRenewals: agents?.leases.renewals.length ?? 0,
        writeErrors: agents?.writeErrors ?? 0,
        patternWrites: agents?.patternWrites?.counts ?? {},
        patternErrors: agents?.patternWrites?.errors ?? 0,
        cpu: process.cpuUsage(),
      });
    } else if (m.type === 'stop') {
      await agents?.stop();
      process.exit(0);
    }
  })().catch((err: unknown) => {
    console.error('fleet-agents:', err);
    process.exit(1);
  });
});
process.on('disconnect', () => process.exit(0));
