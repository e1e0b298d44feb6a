/** A node's FRR as a test reads it (drift, running config): the agent's driver with the agent's identity. */
import { FrrDriver } from '@nodenet/agent';
import type { NodeEnv } from '@nodenet/testkit';

export const nodeFrrDriver = (env: NodeEnv): FrrDriver =>
  new FrrDriver({
    confdir: env.frr.confdir,
    pathspace: env.frr.name,
    rundir: env.frr.rundir,
    settings: { asn: 65001, routerId: '10.98.255.1', vrfRouterId: '10.98.255.2' },
  });
