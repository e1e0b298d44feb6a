/**
 * examples/ (used by the README and `npm start`): devcluster accepts every object under the CRD
 * schemas, and the inputs as stored (schema defaults applied) pass the validation the configurator
 * runs, file by file and all together (no clashing VLAN, VNI or name).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  matchesSelector,
  validateInputs,
  type InputObject,
  type Inputs,
  type LabelSelector,
} from '@nodenet/api';
import { startDevCluster } from '@nodenet/devcluster';
import { KubeClient, loadKubeConfig, makeClients, type KubeObject } from '@nodenet/kube';
import { expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIR = path.join(ROOT, 'examples');
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
const objects = (file: string): (KubeObject & { kind: string })[] =>
  parseAllDocuments(readFileSync(path.join(DIR, file), 'utf8')).map(
    (d) => d.toJS() as KubeObject & { kind: string },
  );

it('examples/ has the files the README and the demo name', () => {
  expect(files.sort()).toEqual(
    [
      'bad-change.yaml',
      'layer2-networks.yaml',
      'nodes.yaml',
      'routing-table.yaml',
      'vrf.yaml',
      'workload-peering.yaml',
    ].sort(),
  );
});

it('devcluster stores every example object; the stored inputs are valid, per file and together', async () => {
  const dc = await startDevCluster({ crdsDir: path.join(ROOT, 'crds') });
  const client = new KubeClient(loadKubeConfig(dc.kubeconfigPath));
  const c = makeClients(client);
  try {
    const stored = new Map<string, InputObject[]>();
    for (const f of files) {
      const list: InputObject[] = [];
      for (const o of objects(f)) {
        if (o.kind === 'Node') await c.node.create(o);
        else if (o.kind === 'VRFRouteConfiguration') list.push(await c.vrf.create(o as never));
        else if (o.kind === 'Layer2NetworkConfiguration') list.push(await c.layer2.create(o as never));
        else if (o.kind === 'RoutingTable') list.push(await c.routingTable.create(o as never));
        else if (o.kind === 'BGPPeering') list.push(await c.bgpPeering.create(o as never));
        else throw new Error(`${f}: unexpected kind ${o.kind}`);
      }
      stored.set(f, list);
    }
    const inputsOf = (objs: InputObject[]): Inputs => ({
      vrf: objs.filter((o) => o.kind === 'VRFRouteConfiguration') as Inputs['vrf'],
      layer2: objs.filter((o) => o.kind === 'Layer2NetworkConfiguration') as Inputs['layer2'],
      routingTable: objs.filter((o) => o.kind === 'RoutingTable') as Inputs['routingTable'],
      bgpPeering: objs.filter((o) => o.kind === 'BGPPeering') as Inputs['bgpPeering'],
    });
    for (const [f, objs] of stored) expect(validateInputs(inputsOf(objs)), f).toEqual([]);
    expect(validateInputs(inputsOf([...stored.values()].flat()))).toEqual([]);
    expect((await c.node.list()).items).toHaveLength(4);
  } finally {
    client.close();
    await dc.stop();
  }
});

// Issue 38: workload-peering.yaml selected no node of the demo (role=worker, bgp=workloads).
it('every example with a node selector selects a node of examples/nodes.yaml (the demo nodes)', () => {
  const labels = objects('nodes.yaml').map((n) => n.metadata.labels ?? {});
  for (const file of files.filter((f) => f !== 'nodes.yaml'))
    for (const o of objects(file)) {
      const selector = (o as { spec?: { nodeSelector?: LabelSelector } }).spec?.nodeSelector;
      if (selector)
        expect(
          labels.some((l) => matchesSelector(selector, l)),
          `${file}: ${o.kind} ${o.metadata.name}`,
        ).toBe(true);
    }
});
