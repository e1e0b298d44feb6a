/**
 * @nodenet/testkit: what the tests, the demo and the benchmarks run nodenet with. Free of vitest
 * (the vitest hooks live beside the tests), so `npm start` and `bench/` use it too.
 *
 * - fleet: a devcluster with the CRDs, simulated agents, an in-process or spawned configurator, a
 *   recorder of NodeConfig changes, inputs of a given size;
 * - host: agents on real hosts in network namespaces with FRR, a BGP node, a real-kernel VM;
 * - `waitFor`, polling on the monotonic clock.
 */
export * from './wait-for.js';
export * from './fleet/big-inputs.js';
export * from './fleet/harness.js';
export * from './fleet/provisioned-fleet.js';
export * from './fleet/simulated-agent.js';
export * from './fleet/agent-write-pattern.js';
export * from './fleet/agent-liveness.js';
export * from './host/agent-host.js';
export * from './host/bgp-node.js';
export * from './host/bundle.js';
export * from './host/frr-netns.js';
export * from './host/frr-template.js';
export * from './host/namespaces.js';
export * from './host/node-env.js';
export * from './host/nodeconfig-status.js';
export * from './host/vm.js';
export * from './sim/index.js';
