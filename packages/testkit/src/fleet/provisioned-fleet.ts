/**
 * A fleet on revision 1 with every node provisioned, written straight to the API as the configurator
 * and the agents write it (no configurator, no agents): what the dashboard's benchmark and its
 * 5,000-node browser test read, in seconds rather than a rollout's minutes.
 */
import {
  API_VERSION,
  ASSIGNED_AT_ANNOTATION,
  REVISION_NUMBER_LABEL,
  buildConfig,
  nodeConfigSpec,
  revisionName,
} from '@nodenet/api';
import { parallel, type Clients } from '@nodenet/kube';
import { createNode, layer2, nodeName } from './harness.js';

/** `nodes` nodes labelled `rack=r000`… round-robin over `racks` racks. */
export async function writeProvisionedFleet(
  clients: Clients,
  { nodes, racks }: { nodes: number; racks: number },
): Promise<void> {
  const { config, hash } = buildConfig({ vrf: [], layer2: [layer2('blue', 100)], routingTable: [] });
  const name = revisionName(1, hash);
  await clients.revision.create({
    apiVersion: API_VERSION,
    kind: 'NetworkConfigRevision',
    metadata: { name },
    spec: { config, hash, number: 1 },
  });
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  await clients.revision.patchStatus(name, {
    status: {
      total: nodes,
      ready: nodes,
      ongoing: 0,
      queued: 0,
      failed: 0,
      conditions: [
        {
          type: 'Complete',
          status: 'True',
          reason: 'AllNodesReady',
          message: 'done',
          lastTransitionTime: now,
        },
      ],
    },
  });
  await parallel(
    Array.from({ length: nodes }, (_, i) => i),
    32,
    async (i) => {
      const node = nodeName(i);
      const labels = { rack: `r${String(i % racks).padStart(3, '0')}` };
      await createNode(clients, node, labels);
      const nc = await clients.nodeConfig.create({
        apiVersion: API_VERSION,
        kind: 'NodeConfig',
        metadata: {
          name: node,
          labels: { [REVISION_NUMBER_LABEL]: '1' },
          annotations: { [ASSIGNED_AT_ANNOTATION]: now },
        },
        spec: nodeConfigSpec({ config, hash }, labels),
      });
      await clients.nodeConfig.patchStatus(node, {
        status: {
          configStatus: 'provisioned',
          lastAppliedRevision: hash,
          revisionNumber: 1,
          appliedRevisionNumber: 1,
          lastUpdate: now,
          message: 'applied',
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'Applied',
              message: 'applied',
              lastTransitionTime: now,
              observedGeneration: nc.metadata.generation ?? 1,
            },
          ],
        },
      });
    },
  );
}
