import type { Inputs, Layer2NetworkConfiguration, NetworkConfigRevision } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { buildRevision } from '../src/revisions.js';

const NOW = Date.parse('2025-01-01T00:00:00Z');

const l2 = (
  name: string,
  spec: Partial<Layer2NetworkConfiguration['spec']> = {},
  generation = 1,
): Layer2NetworkConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'Layer2NetworkConfiguration',
  metadata: { name, generation },
  spec: { id: 100, vni: 10100, mtu: 1500, ...spec },
});
const inputs = (...layer2: Layer2NetworkConfiguration[]): Inputs => ({ vrf: [], layer2, routingTable: [] });

describe('buildRevision', () => {
  it('creates the first revision with number 1 and accepts every input with its generation', () => {
    const r = buildRevision(inputs(l2('blue', {}, 3)), [], NOW);
    expect(r.decision.action).toBe('create');
    if (r.decision.action !== 'create') return;
    expect(r.decision.revision.spec.number).toBe(1);
    expect(r.decision.revision.metadata.name).toBe(`rev-000001-${r.hash?.slice(0, 10)}`);
    const name = r.decision.revision.metadata.name;
    expect(r.inputStatusUpdates[0]?.status).toMatchObject({
      observedGeneration: 3,
      revision: name,
      revisionGeneration: 3,
      conditions: [
        { type: 'Accepted', status: 'True', observedGeneration: 3 },
        { type: 'Applied', status: 'False', reason: 'RollingOut', observedGeneration: 3 },
      ],
    });
    expect(r.decision.revision.spec.changedInputs).toEqual(['Layer2NetworkConfiguration/blue@3']);
  });

  it('an invalid input blocks the revision and names the field and value', () => {
    const r = buildRevision(
      inputs(l2('blue', { anycastGateways: ['10.0.0.0/24'] }), l2('red', { id: 200, vni: 10200 })),
      [],
      NOW,
    );
    expect(r.decision.action).toBe('blocked');
    const blue = r.inputStatusUpdates.find((u) => u.object.metadata.name === 'blue');
    const cond = blue?.status.conditions?.[0];
    expect(cond).toMatchObject({ type: 'Accepted', status: 'False', reason: 'Invalid' });
    expect(cond?.message).toContain('spec.anycastGateways[0]');
    expect(cond?.message).toContain('10.0.0.0/24');
    expect(blue?.newlyRejected).toBe(cond?.message);
    const red = r.inputStatusUpdates.find((u) => u.object.metadata.name === 'red');
    expect(red?.status.conditions?.[0]).toMatchObject({ status: 'True', reason: 'ValidButBlocked' });
  });

  const existing = (number: number, hash: string, invalid = false): NetworkConfigRevision => ({
    apiVersion: 'network.nodenet.io/v1alpha1',
    kind: 'NetworkConfigRevision',
    metadata: { name: `rev-${number}` },
    spec: { config: { vrf: [], layer2: [], routingTable: [] }, hash, number },
    ...(invalid ? { status: { isInvalid: true } } : {}),
  });

  it('skips a configuration equal to the desired revision', () => {
    const h = buildRevision(inputs(l2('blue')), [], NOW).hash as string;
    const r = buildRevision(inputs(l2('blue')), [existing(4, h)], NOW);
    expect(r.decision).toMatchObject({
      action: 'skip',
      reason: expect.stringContaining('desired revision rev-4'),
    });
  });

  it('skips a configuration equal to an invalid revision, and creates it again once that one is deleted', () => {
    const h = buildRevision(inputs(l2('blue')), [], NOW).hash as string;
    const r = buildRevision(inputs(l2('blue')), [existing(5, h, true), existing(4, 'f'.repeat(64))], NOW);
    expect(r.decision).toMatchObject({
      action: 'skip',
      reason: expect.stringContaining('invalid revision rev-5'),
    });
    const again = buildRevision(inputs(l2('blue')), [existing(4, 'f'.repeat(64))], NOW);
    expect(again.decision.action).toBe('create');
    if (again.decision.action === 'create') expect(again.decision.revision.spec.number).toBe(5);
  });

  it('a change back to an older (superseded) configuration gets a new number', () => {
    const h = buildRevision(inputs(l2('blue')), [], NOW).hash as string;
    const r = buildRevision(inputs(l2('blue')), [existing(2, 'e'.repeat(64)), existing(1, h)], NOW);
    expect(r.decision.action).toBe('create');
    if (r.decision.action === 'create') expect(r.decision.revision.spec.number).toBe(3);
  });

  it('writes no input status when nothing changed', () => {
    const first = buildRevision(inputs(l2('blue')), [], NOW);
    const withStatus = { ...l2('blue'), status: first.inputStatusUpdates[0]?.status };
    const second = buildRevision(inputs(withStatus), [], NOW + 5000);
    expect(second.inputStatusUpdates).toEqual([]);
  });
});
