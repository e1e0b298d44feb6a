/**
 * The configurator's informers on a broken list (issue #37): an API server (here a proxy in front of
 * devcluster) that answers the NodeConfig list with `200` and a body cut short. Read as an empty
 * list, every NodeConfig would vanish from the configurator's cache: it would create them again,
 * count every node new and ignore what its agents report. The kube client asks again (3 times) and
 * then fails the list; the informer reports the error, keeps its cache, lists again after a
 * backoff and watches on: the next revision rolls out as usual.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  createNode,
  isComplete,
  layer2,
  nodeName,
  revisionNumbered,
  SimulatedAgents,
  startConfigurator,
  testPolicy,
  useFleet,
  waitFor,
} from './harness.js';

const f = useFleet();
const NODECONFIGS = '/apis/network.nodenet.io/v1alpha1/nodeconfigs';

/** Forwards everything to devcluster; armed, it answers the next NodeConfig watch 410 and `cut` lists with a cut body. */
function brokenListProxy(target: string) {
  const state = { goneWatches: 0, cutLists: 0, cutAnswered: 0 };
  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    const onNodeConfigs = url.startsWith(NODECONFIGS) && !url.slice(NODECONFIGS.length).startsWith('/');
    const watching = /[?&]watch=(true|1)/.test(url);
    if (onNodeConfigs && watching && state.goneWatches > 0) {
      state.goneWatches--;
      res.writeHead(410, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 }));
    }
    if (onNodeConfigs && !watching && req.method === 'GET' && state.cutLists > 0) {
      state.cutLists--;
      state.cutAnswered++;
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"kind":"NodeConfigList","apiVersion":"network.nodenet.io/v1alpha1","items":[');
    }
    const up = http.request(`${target}${url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  return { server, state };
}

describe('an informer list answered 200 with a body cut short', () => {
  it('is an error the informer reports and recovers from, never an empty list', async () => {
    const { server, state } = brokenListProxy(f.dc.url);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const proxied = `${f.dc.kubeconfigPath}.proxied`;
      const port = (server.address() as AddressInfo).port;
      writeFileSync(
        proxied,
        readFileSync(f.dc.kubeconfigPath, 'utf8').replace(f.dc.url, `http://127.0.0.1:${port}`),
      );
      for (let i = 0; i < 3; i++) await createNode(f.clients, nodeName(i));
      f.agents = new SimulatedAgents({ kubeconfigPath: f.dc.kubeconfigPath, defaultDelayMs: 20 });
      await f.agents.start();
      await f.clients.layer2.create(layer2('blue', 100));
      f.configurator = await startConfigurator(
        proxied,
        testPolicy({ updateLimit: { kind: 'count', count: 3 } }),
      );
      const informer = f.configurator.controller.informers.nodeConfig;
      await waitFor('revision 1 complete', async () => isComplete(await revisionNumbered(f, 1)));
      await waitFor('rows settled', async () => {
        const ncs = (await f.clients.nodeConfig.list()).items;
        return ncs.length === 3 && ncs.every((nc) => nc.status?.configStatus === 'provisioned');
      });
      const before = (await f.clients.nodeConfig.list()).items.map((nc) => nc.metadata.uid).sort();
      const events = f.recorder.events.length;
      const errors = informer.stats.errors;

      // The watch ends with 410 Gone: the informer lists again, and the next 3 lists are cut short.
      state.goneWatches = 1;
      state.cutLists = 3;
      f.dc.dropWatches();
      let smallest = Infinity;
      await waitFor('the cut lists answered and the error reported', () => {
        smallest = Math.min(smallest, informer.list().length);
        return state.cutAnswered === 3 && informer.stats.errors > errors;
      });
      // Recovered: a whole list read again after the backoff.
      await waitFor('listed again', () => {
        smallest = Math.min(smallest, informer.list().length);
        return informer.stats.lists >= 3 && informer.list().length === 3;
      });
      expect(smallest).toBe(3);
      // Nothing was created, collected or re-assigned on the strength of a broken answer.
      expect((await f.clients.nodeConfig.list()).items.map((nc) => nc.metadata.uid).sort()).toEqual(before);
      expect(f.recorder.events.slice(events).filter((e) => e.type !== 'MODIFIED')).toEqual([]);

      // And it watches on: the next revision reaches every node and completes.
      await f.clients.layer2.create(layer2('green', 101));
      await waitFor('revision 2 complete', async () => isComplete(await revisionNumbered(f, 2)), 30_000);
    } finally {
      await f.configurator?.stop();
      f.configurator = undefined;
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  }, 90_000);
});
