/** BGPPeerings in the build step (issue #28): validated, merged, held back like the other inputs. */
import {
  nodeAddressesOf,
  type BGPPeering,
  type Inputs,
  type Layer2NetworkConfiguration,
  type NetworkConfigRevision,
} from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { buildRevision } from '@nodenet/configurator';

const NOW = Date.parse('2025-01-01T00:00:00Z');
/** These peerings are in the default VRF: the site allows it (--allow-default-vrf-peering). */
const SITE = { underlay: { defaultVrfPeering: true } };

const peering = (name: string, spec: BGPPeering['spec'], generation = 1): BGPPeering => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'BGPPeering',
  metadata: { name, generation },
  spec,
});
const inputs = (...bgpPeering: BGPPeering[]): Inputs => ({
  vrf: [],
  layer2: [],
  routingTable: [],
  bgpPeering,
});
const router = (holdTime?: number, keepaliveTime?: number): BGPPeering['spec'] => ({
  neighbor: { addresses: ['192.0.2.1'] },
  remoteASN: 65010,
  ...(holdTime !== undefined ? { holdTime } : {}),
  ...(keepaliveTime !== undefined ? { keepaliveTime } : {}),
});

describe('buildRevision with BGPPeerings', () => {
  it('merges a valid peering into the revision and accepts it with its generation', () => {
    const r = buildRevision(inputs(peering('router', router(), 2)), [], NOW, SITE);
    expect(r.decision.action).toBe('create');
    if (r.decision.action !== 'create') return;
    expect(r.decision.revision.spec.config.bgpPeering?.map((e) => e.name)).toEqual(['router']);
    expect(r.decision.revision.spec.changedInputs).toEqual(['BGPPeering/router@2']);
    expect(r.inputStatusUpdates[0]?.status.conditions?.[0]).toMatchObject({
      type: 'Accepted',
      status: 'True',
    });
  });

  it('an invalid new generation is refused with the field, and the generation in force stays', () => {
    const first = buildRevision(inputs(peering('router', router(9, 3))), [], NOW, SITE);
    if (first.decision.action !== 'create') throw new Error('no first revision');
    const rev1: NetworkConfigRevision = {
      ...first.decision.revision,
      status: { completedAt: '2025-01-01T00:00:00Z' },
    };
    const r = buildRevision(
      inputs(
        peering('router', router(9, 4), 2),
        peering('other', { ...router(), neighbor: { addresses: ['192.0.2.2'] } }),
      ),
      [rev1],
      NOW,
      SITE,
    );
    expect(r.decision.action).toBe('create');
    if (r.decision.action !== 'create') return;
    const kept = r.decision.revision.spec.config.bgpPeering?.find((e) => e.name === 'router');
    expect(kept).toMatchObject({ holdTime: 9, keepaliveTime: 3 });
    const refused = r.inputStatusUpdates.find((u) => u.object.metadata.name === 'router');
    expect(refused?.status.conditions?.[0]?.message).toContain(
      'BGPPeering router: spec.keepaliveTime: must be at most a third of holdTime (9) (got 4)',
    );
    expect(r.decision.revision.spec.changedInputs).toEqual(['BGPPeering/other@1']);
  });

  it("refuses the issue's underlay peering before it reaches a revision, and names the field (issue #37)", () => {
    // A Layer-2 network in the default VRF whose /8 gateway covers the nodes, a listen range on it
    // importing 0.0.0.0/0 le 32: refused, nothing of it in the revision, Accepted=False says why.
    const underlayNet: Layer2NetworkConfiguration = {
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'Layer2NetworkConfiguration',
      metadata: { name: 'flat', generation: 1 },
      spec: { id: 40, vni: 10040, anycastMac: '02:00:00:00:00:40', anycastGateways: ['10.0.0.1/8'] },
    };
    const leak = peering('leak', {
      listenRange: { layer2: 'flat' },
      remoteAS: 'external',
      import: [{ cidr: '0.0.0.0/0', seq: 10, le: 32, action: 'permit' }],
    });
    const nodes = [
      { metadata: { name: 'node-1' }, status: { addresses: [{ type: 'InternalIP', address: '10.1.0.11' }] } },
    ];
    const r = buildRevision({ ...inputs(leak), layer2: [underlayNet] }, [], NOW, {
      underlay: { nodeAddresses: nodeAddressesOf(nodes), cidrs: ['10.1.0.0/16'] },
    });
    expect(r.decision.action).toBe('create');
    if (r.decision.action !== 'create') return;
    expect(r.decision.revision.spec.config.bgpPeering ?? []).toEqual([]);
    const refused = r.inputStatusUpdates.find((u) => u.object.metadata.name === 'leak');
    expect(refused?.status.conditions?.[0]).toMatchObject({ type: 'Accepted', status: 'False' });
    expect(refused?.status.conditions?.[0]?.message).toContain(
      `BGPPeering leak: spec.listenRange.layer2: is in the default VRF (the underlay): peering there needs the network's spec.peering.defaultVrf or the site's --allow-default-vrf-peering (got "flat")`,
    );
    // Even where the network's owner opened the default VRF, the range over the nodes is refused.
    const opened = { ...underlayNet, spec: { ...underlayNet.spec, peering: { defaultVrf: true } } };
    const again = buildRevision({ ...inputs(leak), layer2: [opened] }, [], NOW, {
      underlay: { nodeAddresses: nodeAddressesOf(nodes), cidrs: ['10.1.0.0/16'] },
    });
    expect(again.problems.map((p) => p.message)).toEqual([
      'BGPPeering leak: spec.listenRange.layer2: listen range 10.0.0.0/8 covers the address 10.1.0.11 of Node node-1 (got "flat")',
      `BGPPeering leak: spec.import[0].cidr: imports the default route into the default VRF: allowed only by the network's spec.peering.defaultRoute or the site's --allow-default-route-import (got "0.0.0.0/0")`,
    ]);
  });
});
