/**
 * The simulated agents play the real agent's write pattern (AGENT_WRITE_PATTERN, issue 40): on a
 * compressed clock, one changing apply makes the writes the pattern counts (progress reports,
 * liveness through the window, `provisioned`, observed state, the Node condition), the Node keeps
 * its kubelet Ready condition beside NodenetReady, and a no-op apply writes its result and the
 * Node condition once each. The fleet-scale benchmark relies on these counts.
 */
import { API_VERSION, hashConfig, NODENET_READY_CONDITION, type NodeConfig } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import {
  AGENT_WRITE_PATTERN,
  compressed,
  createNode,
  livenessWrites,
  SimulatedAgents,
  waitFor,
  writesPerChangingApply,
  writesPerNoOpApply,
} from '@nodenet/testkit';
import { useFleet } from './harness.js';

const f = useFleet();

function nodeConfig(name: string, vni: number): NodeConfig {
  const config = {
    vrf: [],
    layer2: [
      {
        name: 'blue',
        id: 100,
        vni,
        mtu: 1500,
        anycastGateways: [],
        advertiseNeighbors: false,
        createMacVLANInterface: false,
        neighSuppression: false,
      },
    ],
    routingTable: [],
  };
  return {
    apiVersion: API_VERSION,
    kind: 'NodeConfig',
    metadata: { name },
    spec: { revision: hashConfig(config), ...config } as NodeConfig['spec'],
  };
}

describe('simulated agents with the write pattern', () => {
  it('make the writes the pattern counts per changing and per no-op apply', async () => {
    // 4 m window and 150 s Lease renewals 240 times faster: 1 s, one renewal after 625 ms.
    const pattern = compressed(AGENT_WRITE_PATTERN, 240);
    expect(livenessWrites(pattern)).toBe(1);
    await createNode(f.clients, 'n1');
    const agents = new SimulatedAgents({
      kubeconfigPath: f.dc.kubeconfigPath,
      defaultDelayMs: 10,
      writePattern: pattern,
    });
    f.agents = agents;
    await agents.start();
    const all = (): number =>
      agents.writes.length + Object.values(agents.patternWrites!.counts).reduce((a, b) => a + b, 0);

    const first = await f.clients.nodeConfig.create(nodeConfig('n1', 10100));
    await waitFor('the changing apply written', () => all() >= writesPerChangingApply(pattern) || undefined);
    await new Promise((r) => setTimeout(r, 300)); // nothing more follows
    expect(all()).toBe(writesPerChangingApply(pattern));
    expect(agents.writes.at(-1)?.configStatus).toBe('provisioned');
    expect(agents.patternWrites!.counts).toEqual({ 'node-condition': 3, observed: 1, lease: 1 });
    const nc = await f.clients.nodeConfig.get('n1');
    expect(nc.status?.observed?.vnis?.map((v) => v.vni)).toEqual([10100]);
    const conditions = (await f.clients.node.get('n1')).status?.conditions ?? [];
    expect(conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Ready', 'True', 'KubeletReady'],
      [NODENET_READY_CONDITION, 'True', 'Applied'],
    ]);

    // The same content under another revision reference: a no-op apply.
    const before = all();
    const spec = { ...first.spec, revision: 'b'.repeat(64) };
    await f.clients.nodeConfig.mergePatch('n1', { spec });
    await waitFor(
      'the no-op apply written',
      () => all() >= before + writesPerNoOpApply(pattern) || undefined,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(all() - before).toBe(writesPerNoOpApply(pattern));
    expect(agents.patternWrites!.errors).toBe(0);
  });
});
