/**
 * The leader election loop in its own thread (leader-thread.ts starts it): it renews the Lease on
 * time whatever the main thread is doing. It shares with the main thread two numbers (whether it
 * leads, when the last renewal began on the process-wide monotonic clock) and posts the callbacks.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { KubeClient } from '../client/client.js';
import { loadKubeConfig } from '../client/config.js';
import { LeaderElector, type LeaderElectionConfig } from './leader.js';
import { makeClients } from '../client/resources.js';
import { LEADING, RENEWED_AT, monotonicNs, type LeaderThreadMessage } from './leader-shared.js';

const data = workerData as {
  config: LeaderElectionConfig;
  kubeconfigPath?: string;
  state: SharedArrayBuffer;
};
const state = new BigInt64Array(data.state);
const port = parentPort!;
const post = (m: LeaderThreadMessage): void => port.postMessage(m);
const client = new KubeClient(loadKubeConfig(data.kubeconfigPath));
const elector = new LeaderElector(
  makeClients(client).lease,
  data.config,
  {
    onStartedLeading: () => {
      Atomics.store(state, LEADING, 1n);
      post({ type: 'started' });
    },
    onStoppedLeading: (reason) => {
      Atomics.store(state, LEADING, 0n);
      post({ type: 'stopped', reason });
    },
    onNewLeader: (holder) => post({ type: 'newLeader', holder }),
    onError: (err) => post({ type: 'error', text: String(err) }),
    onRenewed: (startedMs) => {
      Atomics.store(state, RENEWED_AT, BigInt(Math.floor(startedMs * 1e6)));
    },
  },
  () => Number(monotonicNs()) / 1e6,
);

port.on('message', (m: { type: 'stop' }) => {
  if (m.type !== 'stop') return;
  void elector.stop().then((released) => {
    client.close();
    post({ type: 'done', released });
  });
});
elector.start();
