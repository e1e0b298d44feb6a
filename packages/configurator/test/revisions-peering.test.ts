/** BGPPeerings in the build step (issue #28): validated, merged, held back like the other inputs. */
import type { BGPPeering, Inputs, NetworkConfigRevision } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { buildRevision } from '@nodenet/configurator';

const NOW = Date.parse('2025-01-01T00:00:00Z');

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
    const r = buildRevision(inputs(peering('router', router(), 2)), [], NOW);
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
    const first = buildRevision(inputs(peering('router', router(9, 3))), [], NOW);
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
});
