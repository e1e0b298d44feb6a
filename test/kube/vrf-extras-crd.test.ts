/**
 * The CRD's apply-time rules for a VRF's static routes and loopbacks, on devcluster's CEL (the same
 * libraries as kube-apiserver 1.31+): what one object gets wrong on its own is refused at
 * `kubectl apply`, with the field named; the configurator's validation says the rest.
 */
import type { VRFRouteConfiguration } from '@nodenet/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster } from '@nodenet/testkit';

let cluster: Awaited<ReturnType<typeof startCluster>>;
beforeAll(async () => {
  cluster = await startCluster();
});
afterAll(async () => {
  cluster.clients.client.close();
  await cluster.dc.stop();
});

const vrf = (name: string, spec: Partial<VRFRouteConfiguration['spec']>): VRFRouteConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'VRFRouteConfiguration',
  metadata: { name },
  spec: { vrf: name, vni: 1, seq: 1, ...spec },
});

describe('VRFRouteConfiguration static routes and loopbacks at apply time', () => {
  it.each([
    [
      'no next hop',
      [{ prefix: '10.0.0.0/8' }],
      'spec.staticRoutes[0].nextHop: Required value: a static route needs nextHop, nextHopVRF or both',
    ],
    [
      'onlink without a next hop',
      [{ prefix: '10.0.0.0/8', nextHopVRF: 'red', onlink: true }],
      'spec.staticRoutes[0].onlink: Invalid value: "object": onlink needs a nextHop address',
    ],
    [
      'default VRF without a next hop',
      [{ prefix: '10.0.0.0/8', nextHopVRF: 'default' }],
      'spec.staticRoutes[0].nextHop: Required value: nextHopVRF default needs a nextHop address',
    ],
    [
      'a next hop that is no address',
      [{ prefix: '10.0.0.0/8', nextHop: '10.0.0.999' }],
      'spec.staticRoutes[0].nextHop: Invalid value: "string": must be an IPv4 or IPv6 address',
    ],
    [
      'host bits in the prefix',
      [{ prefix: '10.0.0.1/8', nextHop: '10.1.1.1' }],
      'spec.staticRoutes[0].prefix: Invalid value: "string": host bits must be clear',
    ],
  ])('refuses a static route with %s', async (_what, staticRoutes, message) => {
    await expect(cluster.clients.vrf.create(vrf('bad', { staticRoutes }))).rejects.toThrow(message);
  });

  it('accepts a valid route and loopback, and refuses a loopback subnet with host bits', async () => {
    await cluster.clients.vrf.create(
      vrf('good', {
        staticRoutes: [{ prefix: '10.0.0.0/8', nextHop: '192.0.2.1', onlink: true, nextHopVRF: 'default' }],
        loopbacks: [{ name: 'lo', subnet: '10.9.0.0/24' }],
      }),
    );
    await expect(
      cluster.clients.vrf.create(vrf('badlo', { loopbacks: [{ name: 'lo', subnet: '10.9.0.1/24' }] })),
    ).rejects.toThrow('spec.loopbacks[0].subnet: Invalid value: "string": host bits must be clear');
  });
});
