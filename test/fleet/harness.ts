/**
 * The vitest side of the fleet harness: `useFleet` gives each test a fresh devcluster and watch
 * recorder. Everything else of the harness is in @nodenet/testkit (free of vitest, so the demo and
 * the benchmarks use it too), re-exported here for the fleet tests.
 */
import { afterEach, beforeEach } from 'vitest';
import { NodeConfigRecorder, startCluster, type Fleet } from '@nodenet/testkit';

export * from '@nodenet/testkit';

/** Registers per-test set-up and tear-down; the returned object is filled in before each test. */
export function useFleet(): Fleet {
  const f = {
    revisions: async () =>
      (await f.clients.revision.list()).items.sort((a, b) => a.spec.number - b.spec.number),
  } as Fleet;
  beforeEach(async () => {
    ({ dc: f.dc, clients: f.clients } = await startCluster());
    f.recorder = new NodeConfigRecorder(f.dc.kubeconfigPath);
    await f.recorder.start();
  });
  afterEach(async () => {
    await f.configurator?.stop();
    f.configurator = undefined;
    f.recorder.stop();
    await f.agents?.stop();
    f.agents = undefined;
    f.clients.client.close();
    await f.dc.stop();
  });
  return f;
}
