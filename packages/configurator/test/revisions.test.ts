import type { Inputs, Layer2NetworkConfiguration, NetworkConfigRevision } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { buildRevision } from '@nodenet/configurator';

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

  it('a new invalid input holds back only itself: refused with the field and value, the valid one rolls out', () => {
    const r = buildRevision(
      inputs(l2('blue', { anycastGateways: ['10.0.0.0/24'] }), l2('red', { id: 200, vni: 10200 })),
      [],
      NOW,
    );
    expect(r.decision.action).toBe('create');
    if (r.decision.action !== 'create') return;
    expect(r.decision.revision.spec.config.layer2.map((e) => e.name)).toEqual(['red']);
    expect(r.decision.revision.spec.changedInputs).toEqual(['Layer2NetworkConfiguration/red@1']);
    const blue = r.inputStatusUpdates.find((u) => u.object.metadata.name === 'blue');
    const cond = blue?.status.conditions?.[0];
    expect(cond).toMatchObject({ type: 'Accepted', status: 'False', reason: 'Invalid' });
    expect(cond?.message).toContain('spec.anycastGateways[0]');
    expect(cond?.message).toContain('10.0.0.0/24');
    expect(blue?.newlyRejected).toBe(cond?.message);
    expect(blue?.status.conditions?.[1]).toMatchObject({
      type: 'Applied',
      status: 'False',
      reason: 'HeldBack',
    });
    expect(blue?.status.revision).toBeUndefined();
    const red = r.inputStatusUpdates.find((u) => u.object.metadata.name === 'red');
    expect(red?.status.conditions?.[0]).toMatchObject({ status: 'True', reason: 'Valid' });
  });

  const inForceRevision = (...layer2: Layer2NetworkConfiguration[]): NetworkConfigRevision => {
    const first = buildRevision(inputs(...layer2), [], NOW);
    if (first.decision.action !== 'create') throw new Error('no first revision');
    return { ...first.decision.revision, status: { completedAt: '2025-01-01T00:00:00Z' } };
  };

  it('an input in force whose new generation is invalid keeps its generation in force; an unrelated change rolls out', () => {
    const rev1 = inForceRevision(l2('blue', { id: 100, vni: 10100, mtu: 1500 }));
    const r = buildRevision(
      inputs(
        l2('blue', { id: 100, vni: 10100, mtu: 1500, anycastGateways: ['10.0.0.0/24'] }, 2),
        l2('red', { id: 200, vni: 10200 }),
      ),
      [rev1],
      NOW,
    );
    expect(r.decision.action).toBe('create');
    if (r.decision.action !== 'create') return;
    const blue = r.decision.revision.spec.config.layer2.find((e) => e.name === 'blue');
    expect(blue).toMatchObject({ id: 100, anycastGateways: [] });
    expect(r.decision.revision.spec.changedInputs).toEqual(['Layer2NetworkConfiguration/red@1']);
    expect(r.decision.revision.spec.number).toBe(2);
  });

  it('only an invalid change: nothing new to roll out (equal to the revision in force)', () => {
    const rev1 = inForceRevision(l2('blue'));
    const r = buildRevision(inputs(l2('blue', { anycastGateways: ['10.0.0.0/24'] }, 2)), [rev1], NOW);
    expect(r.decision).toMatchObject({ action: 'skip', reason: expect.stringContaining('desired revision') });
  });

  it('a change that collides with a held-back generation is refused too, naming the holder', () => {
    // blue moves to VLAN 300 with a bad gateway (held back on VLAN 100); red takes VLAN 100.
    const rev1 = inForceRevision(l2('blue', { id: 100, vni: 10100 }));
    const r = buildRevision(
      inputs(
        l2('blue', { id: 300, vni: 10100, anycastGateways: ['10.0.0.0/24'] }, 2),
        l2('red', { id: 100, vni: 10200 }),
      ),
      [rev1],
      NOW,
    );
    expect(r.decision).toMatchObject({ action: 'skip' });
    const red = r.inputStatusUpdates.find((u) => u.object.metadata.name === 'red');
    expect(red?.status.conditions?.[0]).toMatchObject({ status: 'False', reason: 'Invalid' });
    expect(red?.status.conditions?.[0]?.message).toContain(
      'spec.id: is already used by Layer2NetworkConfiguration blue (got 100)',
    );
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

  it('Selected: False NoNodeMatches naming the selector when no node matches, True when one does, none without a selector', () => {
    const typo = l2('typo', { id: 300, vni: 10300, nodeSelector: { matchLabels: { rack: 'r9' } } });
    const selected = (nodeLabels: Record<string, string>[], objects = [typo, l2('blue')]) =>
      buildRevision(inputs(...objects), [], NOW, { nodeLabels }).inputStatusUpdates.map((u) => [
        u.object.metadata.name,
        u.status.conditions?.find((c) => c.type === 'Selected'),
      ]);
    const none = Object.fromEntries(selected([{ rack: 'r1' }, { rack: 'r2' }]));
    expect(none.typo).toMatchObject({
      status: 'False',
      reason: 'NoNodeMatches',
      message: 'nodeSelector rack=r9 matches none of the 2 node(s)',
      observedGeneration: 1,
    });
    expect(none.blue).toBeUndefined();
    const some = Object.fromEntries(selected([{ rack: 'r1' }, { rack: 'r9' }]));
    expect(some.typo).toMatchObject({ status: 'True', reason: 'NodesMatch' });
    // The selector removed: the condition goes with it.
    const first = buildRevision(inputs(typo), [], NOW, { nodeLabels: [] }).inputStatusUpdates[0];
    const without = { ...l2('typo', { id: 300, vni: 10300 }, 2), status: first?.status };
    const after = buildRevision(inputs(without), [], NOW, { nodeLabels: [] }).inputStatusUpdates[0];
    expect(after?.status.conditions?.map((c) => c.type)).toEqual(['Accepted', 'Applied']);
  });
});

describe('buildRevision: every changed input is a suspect (issue 35)', () => {
  const many = (n: number, nameLength = 8): Layer2NetworkConfiguration[] =>
    Array.from({ length: n }, (_, i) =>
      l2(`n${String(i).padStart(nameLength - 1, '0')}`, { id: 100 + i, vni: 10_100 + i }),
    );

  it('lists all 120 changed inputs of one commit (no cap at 50)', () => {
    const r = buildRevision(inputs(...many(120)), [], NOW);
    if (r.decision.action !== 'create') throw new Error(r.decision.reason);
    expect(r.decision.revision.spec.changedInputs).toHaveLength(120);
    expect(r.decision.revision.spec.changedInputsOmitted).toBeUndefined();
  });

  it('keeps the list within 32 KiB and counts the rest in changedInputsOmitted', () => {
    const r = buildRevision(inputs(...many(1500, 40)), [], NOW);
    if (r.decision.action !== 'create') throw new Error(r.decision.reason);
    const listed = r.decision.revision.spec.changedInputs ?? [];
    expect(Buffer.byteLength(JSON.stringify(listed))).toBeLessThanOrEqual(32 * 1024);
    expect(listed.length + (r.decision.revision.spec.changedInputsOmitted ?? 0)).toBe(1500);
    expect(r.decision.revision.spec.changedInputsOmitted).toBeGreaterThan(0);
  });

  it('a suspect beyond the listed ones is held back by its content after the revision fails', () => {
    const first = buildRevision(inputs(...many(1500, 40)), [], NOW);
    if (first.decision.action !== 'create') throw new Error(first.decision.reason);
    const bad: NetworkConfigRevision = {
      ...first.decision.revision,
      status: { isInvalid: true, failed: 1 },
    };
    const last = many(1500, 40).at(-1) as Layer2NetworkConfiguration;
    expect(bad.spec.changedInputs).not.toContain(`Layer2NetworkConfiguration/${last.metadata.name}@1`);
    // Nothing ran before it: the failed commit is held back whole, the last input too.
    const again = buildRevision(inputs(...many(1500, 40)), [bad], NOW);
    if (again.decision.action !== 'create') throw new Error(again.decision.reason);
    expect(again.decision.revision.spec.config.layer2).toEqual([]);
  });
});
