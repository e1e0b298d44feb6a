/**
 * A failed change stays rolled back (docs/rollout.md "The model"): the suspects of an invalidated
 * revision are held back from newer revisions (the build) and a newer revision that still carries
 * one is invalidated with it (the planner), so an unrelated merge never re-sends the bad change.
 */
import type {
  BGPPeering,
  Inputs,
  Layer2NetworkConfiguration,
  NetworkConfigRevision,
  VRFRouteConfiguration,
} from '@nodenet/api';
import { buildConfig, findCondition } from '@nodenet/api';
import { describe, expect, it } from 'vitest';
import { buildRevision, plan } from '@nodenet/configurator';
import { done, input, invalid, nc, node, ofType } from './fixtures.js';

const NOW = Date.parse('2025-01-01T00:00:00Z');
const l2 = (name: string, id: number, generation: number, mtu = 1500): Layer2NetworkConfiguration => ({
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'Layer2NetworkConfiguration',
  metadata: { name, generation },
  spec: { id, vni: 10000 + id, mtu },
});
const inputs = (...layer2: Layer2NetworkConfiguration[]): Inputs => ({ vrf: [], layer2, routingTable: [] });
function revision(
  number: number,
  objs: Layer2NetworkConfiguration[],
  changed: string[],
  status?: NetworkConfigRevision['status'],
): NetworkConfigRevision {
  const { config, hash } = buildConfig(inputs(...objs));
  return {
    apiVersion: 'network.nodenet.io/v1alpha1',
    kind: 'NetworkConfigRevision',
    metadata: { name: `rev-${number}` },
    spec: { config, hash, number, changedInputs: changed },
    ...(status ? { status } : {}),
  };
}

// Revision 1 (blue mtu 1500) completed; revision 2 changed blue to mtu 9000 (generation 2) and failed.
const good = revision(1, [l2('blue', 100, 1)], ['Layer2NetworkConfiguration/blue@1'], {
  completedAt: '2025-01-01T00:00:00Z',
});
const bad = revision(2, [l2('blue', 100, 2, 9000)], ['Layer2NetworkConfiguration/blue@2'], {
  isInvalid: true,
  failedNodes: [{ node: 'n00', message: 'cut off', at: '2025-01-01T00:00:00Z' }],
});

describe('the build holds the suspects of an invalid revision back', () => {
  it('an unrelated merge builds a revision without the failed change; the suspect reads RolledBack', () => {
    const r = buildRevision(inputs(l2('blue', 100, 2, 9000), l2('red', 200, 1)), [bad, good], NOW);
    expect(r.decision.action).toBe('create');
    if (r.decision.action !== 'create') return;
    const entries = r.decision.revision.spec.config.layer2;
    expect(entries.map((e) => [e.name, e.mtu])).toEqual([
      ['blue', 1500],
      ['red', 1500],
    ]);
    expect(r.decision.revision.spec.changedInputs).toEqual(['Layer2NetworkConfiguration/red@1']);
    const blue = r.inputStatusUpdates.find((u) => u.object.metadata.name === 'blue')?.status;
    expect(blue).toMatchObject({ revision: 'rev-2', revisionGeneration: 2 });
    expect(findCondition(blue?.conditions, 'Accepted')).toMatchObject({ status: 'True' });
    expect(findCondition(blue?.conditions, 'Applied')).toMatchObject({
      status: 'False',
      reason: 'RolledBack',
    });
    expect(findCondition(blue?.conditions, 'Applied')?.message).toContain('held back');
  });

  it('a new generation of the input releases it', () => {
    const r = buildRevision(inputs(l2('blue', 100, 3, 9000), l2('red', 200, 1)), [bad, good], NOW);
    if (r.decision.action !== 'create') throw new Error(r.decision.reason);
    expect(r.decision.revision.spec.config.layer2.find((e) => e.name === 'blue')?.mtu).toBe(9000);
  });

  it('a retry of the invalid revision releases it', () => {
    const retry = {
      ...revision(3, [l2('blue', 100, 2, 9000)], []),
      spec: { ...bad.spec, number: 3, retryOf: 'rev-2' },
    };
    const r = buildRevision(inputs(l2('blue', 100, 2, 9000), l2('red', 200, 1)), [retry, bad, good], NOW);
    if (r.decision.action !== 'create') throw new Error(r.decision.reason);
    expect(r.decision.revision.spec.config.layer2.find((e) => e.name === 'blue')?.mtu).toBe(9000);
  });
});

describe('suspects count from the last completed revision (issue 23)', () => {
  // Revision 2 changed blue (never completed); revision 3, an unrelated merge adding red, still
  // carries blue@2 and failed. Blue is as suspect as red: the fallback, revision 1, never had either.
  const superseded = revision(2, [l2('blue', 100, 2, 9000)], ['Layer2NetworkConfiguration/blue@2']);
  const failed = revision(
    3,
    [l2('blue', 100, 2, 9000), l2('red', 200, 1)],
    ['Layer2NetworkConfiguration/red@1'],
    { isInvalid: true, failedNodes: [{ node: 'n00', message: 'cut off', at: '2025-01-01T00:00:00Z' }] },
  );
  it('the build holds back the change carried in from the superseded revision too', () => {
    const r = buildRevision(
      inputs(l2('blue', 100, 2, 9000), l2('red', 200, 1), l2('green', 300, 1)),
      [failed, superseded, good],
      NOW,
    );
    expect(r.decision.action).toBe('create');
    if (r.decision.action !== 'create') return;
    expect(r.decision.revision.spec.config.layer2.map((e) => [e.name, e.mtu])).toEqual([
      ['blue', 1500],
      ['green', 1500],
    ]);
  });
  it('the fallback is the completed revision 1, never the superseded revision 2', () => {
    const p = plan(
      input({
        revisions: [failed, superseded, good],
        nodes: [node('n00'), node('n01')],
        nodeConfigs: [
          nc('n00', failed.spec.hash, { number: 3, status: invalid(good.spec.hash) }),
          nc('n01', superseded.spec.hash, { number: 2, status: done(superseded.spec.hash) }),
        ],
      }),
    );
    expect(p.desired?.number).toBe(1);
  });
});

describe('the planner invalidates a newer revision that carries a held-back suspect', () => {
  // Revision 3 was built (an unrelated merge: red) while revision 2 was still rolling out: it
  // carries blue@2 too. Revision 2 is invalidated in this pass (n00 reported invalid).
  const rolling = { ...bad, status: {} };
  const merged = revision(
    3,
    [l2('blue', 100, 2, 9000), l2('red', 200, 1)],
    ['Layer2NetworkConfiguration/red@1'],
  );
  const p = plan(
    input({
      revisions: [merged, rolling, good],
      nodes: [node('n00'), node('n01'), node('n02')],
      nodeConfigs: [
        nc('n00', rolling.spec.hash, { number: 2, move: 'forward', status: invalid(good.spec.hash) }),
        nc('n01', good.spec.hash, { number: 1, status: done(good.spec.hash) }),
        nc('n02', good.spec.hash, { number: 1, status: done(good.spec.hash) }),
      ],
    }),
  );

  it('revision 2 fails and revision 3 is invalid with it (CarriesRolledBackChange); the fallback is revision 1', () => {
    expect(ofType(p.actions, 'invalidate').map((a) => [a.revision, a.reason.slice(0, 40)])).toEqual([
      ['rev-2', expect.stringContaining('1 node(s) failed') as unknown as string],
      ['rev-3', expect.stringContaining('carries Layer2NetworkConfiguration/blue') as unknown as string],
    ]);
    const st = p.statusUpdates.find((u) => u.revision === 'rev-3')?.status;
    expect(findCondition(st?.conditions, 'Invalid')).toMatchObject({
      status: 'True',
      reason: 'CarriesRolledBackChange',
    });
    expect(p.desired?.name).toBe('rev-1');
  });

  it('no node is handed the carrier, and the node that took revision 2 rolls back', () => {
    expect(ofType(p.actions, 'assign').map((a) => [a.node, a.revision, a.move])).toEqual([
      ['n00', 'rev-1', 'rollback'],
    ]);
  });
});

describe('a change keeps its failure budget across a superseding revision (seed 20 of the full generator)', () => {
  // --max-failures 1. Revision 2 (blue@2) failed n00 and is not invalid (1 is within the budget);
  // revision 3 is an unrelated merge (red) built meanwhile, still carrying blue@2; n01 now fails it.
  const once = {
    failed: 1,
    failedNodes: [{ node: 'n00', message: 'cut off', at: '2025-01-01T00:00:00Z' }],
  };
  const rolling = { ...bad, status: once };
  const nodes = [node('n00'), node('n01'), node('n02')];
  const planWith = (newer: NetworkConfigRevision, older: NetworkConfigRevision = rolling) =>
    plan(
      input({
        policy: { maxFailures: 1 },
        revisions: [newer, older, good],
        nodes,
        nodeConfigs: [
          nc('n00', good.spec.hash, { number: 1, status: done(good.spec.hash) }),
          nc('n01', newer.spec.hash, { number: 3, move: 'forward', status: invalid(good.spec.hash) }),
          nc('n02', good.spec.hash, { number: 1, status: done(good.spec.hash) }),
        ],
      }),
    );

  it('the failures on revision 2 count against revision 3, which carries its change: 2 > 1, invalid', () => {
    const merged = revision(
      3,
      [l2('blue', 100, 2, 9000), l2('red', 200, 1)],
      ['Layer2NetworkConfiguration/red@1'],
    );
    const inv = ofType(planWith(merged).actions, 'invalidate').map((a) => [a.revision, a.reason]);
    expect(inv).toEqual([
      [
        'rev-3',
        expect.stringMatching(
          /^2 node\(s\) failed \(its change failed nodes on superseded revision\(s\) 2 too/,
        ),
      ],
    ]);
  });

  it('a revision that reverts the change inherits nothing: 1 failure of its own stays within the budget', () => {
    const reverted = revision(
      3,
      [l2('blue', 100, 3), l2('red', 200, 1)],
      ['Layer2NetworkConfiguration/blue@3', 'Layer2NetworkConfiguration/red@1'],
    );
    expect(ofType(planWith(reverted).actions, 'invalidate')).toEqual([]);
  });

  // Issue 35: a commit too large to list its changed inputs (over 32 KiB of names) counts the rest
  // in changedInputsOmitted; its changes are known by content, and their failures are inherited too.
  it('the same when revision 2 could not list its changes (changedInputsOmitted)', () => {
    const unlisted = { ...rolling, spec: { ...rolling.spec, changedInputs: [], changedInputsOmitted: 1 } };
    const merged = revision(
      3,
      [l2('blue', 100, 2, 9000), l2('red', 200, 1)],
      ['Layer2NetworkConfiguration/red@1'],
    );
    const inv = ofType(planWith(merged, unlisted).actions, 'invalidate').map((a) => a.revision);
    expect(inv).toEqual(['rev-3']);
    const reverted = revision(
      3,
      [l2('blue', 100, 3), l2('red', 200, 1)],
      ['Layer2NetworkConfiguration/blue@3', 'Layer2NetworkConfiguration/red@1'],
    );
    expect(ofType(planWith(reverted, unlisted).actions, 'invalidate')).toEqual([]);
  });
});

// Issue 35: BGPPeering was no suspect kind, so a failed peering change (a password rotation that
// cut the sessions, a hold time) came back with the next unrelated merge.
describe('a failed BGPPeering change stays rolled back', () => {
  const router = (generation: number, holdTime: number): BGPPeering => ({
    apiVersion: 'network.nodenet.io/v1alpha1',
    kind: 'BGPPeering',
    metadata: { name: 'router', generation },
    spec: {
      neighbor: { addresses: ['192.0.2.1'], vrf: 'red' },
      remoteASN: 65010,
      holdTime,
      keepaliveTime: holdTime / 3,
    },
  });
  const vrf: VRFRouteConfiguration = {
    apiVersion: 'network.nodenet.io/v1alpha1',
    kind: 'VRFRouteConfiguration',
    metadata: { name: 'red', generation: 1 },
    spec: { vrf: 'red', vni: 5000, seq: 10, export: [] },
  };
  const withPeering = (p: BGPPeering, ...layer2: Layer2NetworkConfiguration[]): Inputs => ({
    ...inputs(...layer2),
    vrf: [vrf],
    bgpPeering: [p],
  });
  const rev = (n: number, i: Inputs, changed: string[], status: NetworkConfigRevision['status']) => {
    const { config, hash } = buildConfig(i);
    return {
      apiVersion: 'network.nodenet.io/v1alpha1',
      kind: 'NetworkConfigRevision',
      metadata: { name: `rev-${n}` },
      spec: { config, hash, number: n, changedInputs: changed },
      status,
    } satisfies NetworkConfigRevision;
  };
  const ok = rev(1, withPeering(router(1, 9), l2('blue', 100, 1)), ['BGPPeering/router@1'], {
    completedAt: '2025-01-01T00:00:00Z',
  });
  const failed = rev(2, withPeering(router(2, 30), l2('blue', 100, 1)), ['BGPPeering/router@2'], {
    isInvalid: true,
    failedNodes: [{ node: 'n00', message: 'sessions down', at: '2025-01-01T00:00:00Z' }],
  });

  it('an unrelated merge builds a revision with the peering as it ran before', () => {
    const r = buildRevision(
      withPeering(router(2, 30), l2('blue', 100, 1), l2('red', 200, 1)),
      [failed, ok],
      NOW,
    );
    expect(r.decision.action).toBe('create');
    if (r.decision.action !== 'create') return;
    expect(r.decision.revision.spec.config.bgpPeering?.map((p) => [p.name, p.holdTime])).toEqual([
      ['router', 9],
    ]);
    expect(r.decision.revision.spec.changedInputs).toContain('Layer2NetworkConfiguration/red@1');
    expect(r.decision.revision.spec.changedInputs).not.toContain('BGPPeering/router@2');
  });
});
