/**
 * The blame rule within one second (issue 44, item 2): `creationTimestamp` has one-second
 * resolution, so two objects that claim the same interface name and were created in the same second
 * are ordered by the order the configurator's watch saw them created (the API server's). A Layer-2
 * network with VNI N and a VRF named N both need `vx.N`: whichever was created second is refused,
 * whatever their kinds and names. devcluster, the real configurator with its default quiet period
 * (both objects are built in one pass, so neither is in force before the other).
 */
import type { Condition, VRFRouteConfiguration } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { layer2, startConfigurator, testPolicy, useFleet, waitFor } from './harness.js';

const f = useFleet();

const vrfNamed = (name: string, vrf: string): VRFRouteConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'VRFRouteConfiguration',
  metadata: { name },
  spec: { vrf, vni: 300 + Number(vrf) - 14000, seq: 10 },
});

/** Resolves at the start of the next wall-clock second: devcluster stamps objects from this clock. */
const nextSecond = (): Promise<void> => new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000)));

async function accepted(kind: 'vrf' | 'layer2', name: string): Promise<Condition> {
  return waitFor(`${kind} ${name} Accepted`, async () =>
    (await f.clients[kind].get(name)).status?.conditions?.find((c) => c.type === 'Accepted'),
  );
}

/**
 * Creates the two objects contesting `vx.<vni>` in `order`, in one second of creation time (tried
 * again with the next second when a create straddled one), and returns their creation timestamps.
 */
async function createInOneSecond(
  vni: number,
  names: { vrf: string; net: string },
  order: ('vrf' | 'net')[],
): Promise<string[]> {
  for (let attempt = 0; ; attempt++) {
    await nextSecond();
    const stamps: string[] = [];
    for (const which of order) {
      const o =
        which === 'vrf'
          ? await f.clients.vrf.create(vrfNamed(names.vrf, String(vni)))
          : await f.clients.layer2.create(layer2(names.net, vni - 10000));
      stamps.push(o.metadata.creationTimestamp ?? '');
    }
    if (stamps[0] === stamps[1] || attempt === 3) return stamps;
    await f.clients.vrf.delete(names.vrf);
    await f.clients.layer2.delete(names.net);
  }
}

describe('blame rule within one second of creation', () => {
  it('two objects that both mean vx.N, created within one second: the second one seen is refused, whatever their kinds and names', async () => {
    f.configurator = await startConfigurator(f.dc.kubeconfigPath, testPolicy({}), {
      buildTiming: { quietMs: 1500, maxDelayMs: 5000 },
    });
    // The network first; the VRF's name sorts first and its kind ranked first before.
    const first = await createInOneSecond(14005, { vrf: 'aaa', net: 'zzz' }, ['net', 'vrf']);
    expect(first[0]).toBe(first[1]);
    expect(await accepted('vrf', 'aaa')).toMatchObject({
      status: 'False',
      message: expect.stringContaining(
        'spec.vrf: interface name "vx.14005" is already used by Layer2NetworkConfiguration zzz',
      ),
    });
    expect(await accepted('layer2', 'zzz')).toMatchObject({ status: 'True' });

    // The VRF first, the network's name sorting first.
    const second = await createInOneSecond(14006, { vrf: 'zzz', net: 'aaa' }, ['vrf', 'net']);
    expect(second[0]).toBe(second[1]);
    expect(await accepted('layer2', 'aaa')).toMatchObject({
      status: 'False',
      message: expect.stringContaining(
        'spec.vni: interface name "vx.14006" is already used by VRFRouteConfiguration zzz',
      ),
    });
    expect(await accepted('vrf', 'zzz')).toMatchObject({ status: 'True' });
  }, 60_000);
});
