/**
 * The FRR base template and the health checks roll out like any change (issue #36): devcluster, the
 * configurator and simulated agents. An AgentConfiguration change is one revision; a template that
 * fails on every node reaches at most update-limit + max-failures nodes and is rolled back.
 */
import { describe, expect, it } from 'vitest';
import type { AgentConfiguration } from '@nodenet/api';
import {
  DEPLOY_TEMPLATE,
  fleetOnRevision1,
  isComplete,
  nodesThatTook,
  revisionNumbered,
  useFleet,
  waitFor,
} from './harness.js';

const f = useFleet();

/** The shipped template. */
const TEMPLATE = DEPLOY_TEMPLATE;

const agentConfiguration = (frrTemplate: string): AgentConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'AgentConfiguration',
  metadata: { name: 'default' },
  spec: { frrTemplate, healthChecks: { interfaces: ['eth0'] } },
});

describe('AgentConfiguration rolls out as a revision', () => {
  it('a template change is one revision: every node gets the template and the checks in its NodeConfig', async () => {
    await fleetOnRevision1(f, 6, { updateLimit: { kind: 'count', count: 2 } });
    await f.clients.agentConfiguration.create(agentConfiguration(TEMPLATE));
    const r2 = await waitFor('revision 2 complete', async () => {
      const r = await revisionNumbered(f, 2);
      return isComplete(r) ? r : undefined;
    });
    expect(r2.spec.changedInputs).toEqual(['AgentConfiguration/default@1']);
    expect(r2.spec.config.agentConfig?.map((a) => a.name)).toEqual(['default']);
    expect(r2.status).toMatchObject({ total: 6, ready: 6, failed: 0 });
    expect(f.recorder.maxInProgress).toBeLessThanOrEqual(2);
    for (const nc of (await f.clients.nodeConfig.list()).items)
      expect(nc.spec.agent).toEqual({
        name: 'default',
        frrTemplate: TEMPLATE,
        healthChecks: { interfaces: ['eth0'] },
      });
    expect((await f.revisions()).length).toBe(2);

    const accepted = (await f.clients.agentConfiguration.get('default')).status?.conditions;
    expect(accepted?.find((c) => c.type === 'Accepted')?.status).toBe('True');
  }, 60_000);

  it('a template that fails everywhere reaches at most limit + max-failures nodes and is rolled back', async () => {
    const r1 = await fleetOnRevision1(
      f,
      8,
      { updateLimit: { kind: 'count', count: 2 }, maxFailures: 1 },
      {
        later: () => ({
          kind: 'invalid',
          delayMs: 100,
          message: 'FRR apply failed: vtysh -C: % Unknown command: neighbor fabric bfd profile typo',
        }),
      },
    );
    await f.clients.agentConfiguration.create(
      agentConfiguration(
        TEMPLATE.replace(
          'exit\n!\n{{ bgp_vrfs }}',
          ' neighbor FABRIC bfd profile typo\nexit\n!\n{{ bgp_vrfs }}',
        ),
      ),
    );
    const r2 = await waitFor('revision 2 invalid', async () => {
      const r = await revisionNumbered(f, 2);
      return r?.status?.isInvalid ? r : undefined;
    });
    expect(r2.spec.changedInputs).toEqual(['AgentConfiguration/default@1']);
    await waitFor('every node back on revision 1', async () => {
      const ncs = (await f.clients.nodeConfig.list()).items;
      return (
        ncs.length === 8 &&
        ncs.every((nc) => nc.spec.revision === r1.spec.hash && nc.spec.agent === undefined)
      );
    });
    expect(nodesThatTook(f, r2.spec.hash).length).toBeLessThanOrEqual(2 + 1);
    expect(r2.status?.failedNodes?.length).toBeGreaterThanOrEqual(2);
    // The failed template stays rolled back: no revision carries it again until it changes.
    expect((await f.revisions()).length).toBe(2);
  }, 60_000);

  it('two AgentConfigurations selecting the same node: the newer is refused, naming the other; the revision keeps the first', async () => {
    await fleetOnRevision1(f, 2, {});
    await f.clients.agentConfiguration.create(agentConfiguration(TEMPLATE));
    await waitFor('revision 2 complete', async () => isComplete(await revisionNumbered(f, 2)));
    await f.clients.agentConfiguration.create({
      ...agentConfiguration(`${TEMPLATE}! rack b\n`),
      metadata: { name: 'rack-b' },
      spec: { frrTemplate: `${TEMPLATE}! rack b\n`, nodeSelector: { matchLabels: { uplink: 'b' } } },
    });
    const refused = await waitFor('rack-b refused', async () => {
      const c = (await f.clients.agentConfiguration.get('rack-b')).status?.conditions;
      return c?.find((x) => x.type === 'Accepted' && x.status === 'False');
    });
    expect(refused.message).toMatch(
      /^AgentConfiguration rack-b: spec.nodeSelector: may select the same nodes as AgentConfiguration default \(nodeSelector \(all nodes\)\)/,
    );
    expect((await f.revisions()).length).toBe(2);
    for (const nc of (await f.clients.nodeConfig.list()).items) expect(nc.spec.agent?.name).toBe('default');
  }, 60_000);
});
