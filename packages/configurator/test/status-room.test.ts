/**
 * Status room (issue #37): a NodeConfig's status is bounded in its CRD to what the agent writes, and
 * the size budget leaves room for the largest one, so spec + status always fit the object limit and
 * one agent's status can not make the configurator's writes of its NodeConfig fail ("etcdserver:
 * request is too large" stalled every rollout).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { API_VERSION, MAX_AGENT_MESSAGE_LENGTH, MAX_OBSERVED_ITEMS, NodeConfigStatus } from '@nodenet/api';
import {
  DEFAULT_BUDGET,
  ETCD_OBJECT_LIMIT,
  maxJsonBytes,
  NODE_CONFIG_STATUS_MAX_BYTES,
  REVISION_HEADROOM,
} from '@nodenet/configurator';
import { startDevCluster, type DevCluster } from '@nodenet/devcluster';
import { KubeApiError, KubeClient, loadKubeConfig, makeClients, type Clients } from '@nodenet/kube';

let dc: DevCluster;
let client: KubeClient;
let c: Clients;

beforeAll(async () => {
  dc = await startDevCluster({ crdsDir: new URL('../../../crds', import.meta.url).pathname });
  client = new KubeClient(loadKubeConfig(dc.kubeconfigPath));
  c = makeClients(client);
});
afterAll(async () => {
  client?.close();
  await dc?.stop();
});

const word = (n: number): string => 'w'.repeat(n);
const session = (i: number) => ({
  vrf: word(60),
  peer: `${word(50)}${String(i).padStart(8, '0')}`,
  state: word(64),
  since: '2026-11-27T19:00:00Z',
  remoteAs: 4294967295,
});
/** The largest status an agent can write: every list full, every text at its limit, in the worst characters. */
const largestStatus = () => {
  const text = '\u0001'.repeat(MAX_AGENT_MESSAGE_LENGTH);
  return {
    configStatus: 'provisioning',
    lastUpdate: '2026-11-27T19:00:00Z',
    message: text,
    conditions: ['Ready', 'Progressing', 'Confirming', 'Invalid', 'Spare1', 'Spare2'].map((type) => ({
      type,
      status: 'Unknown',
      reason: word(128),
      message: text,
      lastTransitionTime: '2026-11-27T19:00:00Z',
    })),
    observed: {
      error: text,
      bgpSessions: Array.from({ length: MAX_OBSERVED_ITEMS }, (_, i) => session(i)),
      vnis: Array.from({ length: MAX_OBSERVED_ITEMS }, (_, i) => ({
        vni: 16_000_000 + i,
        type: 'L3',
        vrf: word(64),
        vxlanInterface: word(64),
        state: word(64),
      })),
    },
  };
};

/** A NodeConfig whose spec is `bytes` long (VRF entries, as a revision at the budget gives one node). */
function nodeConfigOfSize(name: string, bytes: number) {
  const vrf = (i: number) => ({
    name: `v${i}`,
    vrf: `v${i}`,
    vni: i + 1,
    import: [],
    export: [],
    aggregate: [],
    seq: 1,
    mtu: 9000,
  });
  const spec = {
    revision: 'a'.repeat(64),
    vrf: [] as ReturnType<typeof vrf>[],
    layer2: [],
    routingTable: [],
  };
  let size = Buffer.byteLength(JSON.stringify(spec));
  for (let i = 0; ; i++) {
    const more = Buffer.byteLength(JSON.stringify(vrf(i))) + 1;
    if (size + more > bytes) break;
    spec.vrf.push(vrf(i));
    size += more;
  }
  return { apiVersion: API_VERSION, kind: 'NodeConfig', metadata: { name }, spec };
}

describe('status room in the size budget', () => {
  it('the largest status, the config budget and the metadata headroom fit the object limit together', () => {
    expect(
      DEFAULT_BUDGET.maxConfigBytes + NODE_CONFIG_STATUS_MAX_BYTES + REVISION_HEADROOM,
    ).toBeLessThanOrEqual(ETCD_OBJECT_LIMIT);
    // The figure is the schema's own largest JSON: the worst status an agent can write stays within it.
    const worst = Buffer.byteLength(JSON.stringify(largestStatus()));
    expect(worst).toBeLessThanOrEqual(NODE_CONFIG_STATUS_MAX_BYTES);
    expect(worst).toBeGreaterThan(NODE_CONFIG_STATUS_MAX_BYTES * 0.8);
  });

  it('an unbounded list or string has no largest size: the figure refuses to guess', () => {
    expect(() => maxJsonBytes(Type.Object({ xs: Type.Array(Type.String({ maxLength: 3 })) }))).toThrow(
      '$.xs: a list without maxItems has no largest size',
    );
    expect(() => maxJsonBytes(NodeConfigStatus)).not.toThrow();
  });

  it('a NodeConfig with a spec at the budget takes the largest status the CRD admits', async () => {
    const nc = await c.nodeConfig.create(
      nodeConfigOfSize('node-big', DEFAULT_BUDGET.maxConfigBytes) as never,
    );
    expect(Buffer.byteLength(JSON.stringify(nc.spec))).toBeGreaterThan(DEFAULT_BUDGET.maxConfigBytes - 200);
    const written = await c.nodeConfig.patchStatus('node-big', { status: largestStatus() } as never);
    expect(written.status?.observed?.bgpSessions).toHaveLength(MAX_OBSERVED_ITEMS);
    // And the configurator's next assignment write of the spec still fits beside it.
    const reassigned = await c.nodeConfig.mergePatch('node-big', {
      spec: { revision: 'b'.repeat(64) },
    } as never);
    expect(reassigned.spec.revision).toBe('b'.repeat(64));
  }, 60_000);

  it("the CRD refuses more observed sessions than the agent writes (the issue's 8,192)", async () => {
    await c.nodeConfig.create(nodeConfigOfSize('node-small', 100) as never);
    const status = largestStatus();
    status.observed.bgpSessions = Array.from({ length: 8192 }, (_, i) => session(i));
    const err = await c.nodeConfig.patchStatus('node-small', { status } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).statusCode).toBe(422);
    expect((err as KubeApiError).serverMessage).toContain(
      'status.observed.bgpSessions: Too many: 8192: must have at most 256 items',
    );
  });
});
