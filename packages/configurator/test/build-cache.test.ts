/**
 * A rebuild reuses what it worked out for unchanged API objects (verdicts and merged entries by uid +
 * resourceVersion, the Applied condition per carrier revision, node specs per selector group and
 * revision). On random histories of input edits, status writes, relists, removals and revision
 * outcomes, the build with every cache warm must decide exactly what a build of fresh objects
 * (no uid or resourceVersion, copies of the revisions: nothing cached applies) decides.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  API_VERSION,
  canonicalJson,
  nodeConfigSpec,
  type InputObject,
  type Inputs,
  type Layer2NetworkConfiguration,
  type NetworkConfigRevision,
  type VRFRouteConfiguration,
} from '@nodenet/api';
import { buildRevision, NodeSpecCache, type BuildResult } from '@nodenet/configurator';

const NOW = Date.parse('2025-01-01T00:00:00Z');
const NODE_LABELS: Record<string, string>[] = [
  { rack: 'r0' },
  { rack: 'r1' },
  { rack: 'r1', edge: 'yes' },
  {},
];

type Op =
  | { op: 'editL2'; at: number; id: number; vni: number; gw: number; rack: number; vrf: number }
  | { op: 'editVrf'; at: number; vni: number; seq: number; vrf: number }
  | { op: 'statusWrite' }
  | { op: 'relist'; at: number }
  | { op: 'editInPlace'; at: number; id: number }
  | { op: 'remove'; at: number }
  | { op: 'revision'; outcome: 'invalid' | 'complete' };

const small = (n: number) => fc.nat(n);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('editL2' as const),
    at: small(7),
    id: small(5),
    vni: small(5),
    gw: small(5),
    rack: small(3),
    vrf: small(3),
  }),
  fc.record({
    op: fc.constant('editVrf' as const),
    at: small(3),
    vni: small(4),
    seq: small(2),
    vrf: small(2),
  }),
  fc.record({ op: fc.constant('statusWrite' as const) }),
  fc.record({ op: fc.constant('relist' as const), at: small(11) }),
  fc.record({ op: fc.constant('editInPlace' as const), at: small(7), id: small(5) }),
  fc.record({ op: fc.constant('remove' as const), at: small(11) }),
  fc.record({
    op: fc.constant('revision' as const),
    outcome: fc.constantFrom('invalid' as const, 'complete' as const),
  }),
);

let rv = 0;
const nextRv = (): string => String(++rv);

function l2Spec(o: Extract<Op, { op: 'editL2' }>): Layer2NetworkConfiguration['spec'] {
  return {
    id: 10 + o.id,
    vni: 5000 + o.vni,
    mtu: 1500,
    anycastMac: '02:00:00:00:00:01',
    anycastGateways: [`10.${o.gw}.0.1/24`],
    ...(o.vrf < 2 ? { vrf: `v${o.vrf}` } : {}),
    ...(o.rack < 2 ? { nodeSelector: { matchLabels: { rack: `r${o.rack}` } } } : {}),
  };
}

const vrfSpec = (o: Extract<Op, { op: 'editVrf' }>): VRFRouteConfiguration['spec'] => ({
  vrf: `v${o.vrf}`,
  vni: 100 + o.vni,
  seq: 10 + o.seq,
  import: [{ cidr: `10.${100 + o.vni}.0.0/16`, seq: 10, action: 'permit' }],
});

const meta = (name: string, generation: number) => ({
  name,
  generation,
  uid: `uid-${name}`,
  resourceVersion: nextRv(),
});

function initial(): Inputs {
  const editL2 = (at: number) => ({
    op: 'editL2' as const,
    at,
    id: at,
    vni: at,
    gw: at,
    rack: at % 3,
    vrf: at % 3,
  });
  return {
    vrf: [0, 1].map((at) => ({
      apiVersion: API_VERSION,
      kind: 'VRFRouteConfiguration' as const,
      metadata: meta(`vrf-${at}`, 1),
      spec: vrfSpec({ op: 'editVrf', at, vni: at, seq: 0, vrf: at }),
    })),
    layer2: [0, 1, 2, 3].map((at) => ({
      apiVersion: API_VERSION,
      kind: 'Layer2NetworkConfiguration' as const,
      metadata: meta(`l2-${at}`, 1),
      spec: l2Spec(editL2(at)),
    })),
    routingTable: [],
  };
}

/** The object edited: generation and resourceVersion move on, the spec is a new object. */
function edited<T extends InputObject>(list: T[], kind: T['kind'], name: string, spec: T['spec']): T[] {
  const old = list.find((o) => o.metadata.name === name);
  const next = {
    apiVersion: API_VERSION,
    kind,
    metadata: meta(name, (old?.metadata.generation ?? 0) + 1),
    spec,
    ...(old?.status ? { status: old.status } : {}),
  } as T;
  return [...list.filter((o) => o.metadata.name !== name), next];
}

const all = (i: Inputs): InputObject[] => [...i.vrf, ...i.layer2, ...i.routingTable];

/** Each object as the API server would send it again: the same content, new objects (JSON). */
const copied = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

function mapInputs(i: Inputs, f: (o: InputObject) => InputObject | undefined): Inputs {
  const keep = <T extends InputObject>(xs: T[]): T[] => xs.flatMap((o) => (f(o) as T | undefined) ?? []);
  return { vrf: keep(i.vrf), layer2: keep(i.layer2), routingTable: keep(i.routingTable) };
}

function apply(
  state: { inputs: Inputs; revisions: NetworkConfigRevision[]; last?: BuildResult },
  o: Op,
): void {
  const { inputs } = state;
  switch (o.op) {
    case 'editL2':
      state.inputs = {
        ...inputs,
        layer2: edited(inputs.layer2, 'Layer2NetworkConfiguration', `l2-${o.at}`, l2Spec(o)),
      };
      return;
    case 'editVrf':
      state.inputs = {
        ...inputs,
        vrf: edited(inputs.vrf, 'VRFRouteConfiguration', `vrf-${o.at}`, vrfSpec(o)),
      };
      return;
    case 'statusWrite': {
      // The configurator writes the statuses; the informer delivers each object again, new rv.
      const updates = new Map((state.last?.inputStatusUpdates ?? []).map((u) => [u.object, u.status]));
      state.inputs = mapInputs(inputs, (x) => {
        const status = updates.get(x);
        return status ? copied({ ...x, metadata: { ...x.metadata, resourceVersion: nextRv() }, status }) : x;
      });
      return;
    }
    case 'relist': {
      const name = all(inputs)[o.at % Math.max(1, all(inputs).length)]?.metadata.name;
      state.inputs = mapInputs(inputs, (x) => (x.metadata.name === name ? copied(x) : x));
      return;
    }
    case 'editInPlace': {
      // A client that edits the spec object it was given and sends it: a new resourceVersion, the
      // same spec object (scalar fields only: entries of earlier revisions share its lists).
      const name = `l2-${o.at}`;
      state.inputs = mapInputs(inputs, (x) => {
        if (x.metadata.name !== name || x.kind !== 'Layer2NetworkConfiguration') return x;
        // 5000 is out of the VLAN range: the object's own verdict changes too.
        x.spec.id = o.id === 5 ? 5000 : 10 + o.id;
        const generation = (x.metadata.generation ?? 0) + 1;
        return { ...x, metadata: { ...x.metadata, generation, resourceVersion: nextRv() } };
      });
      return;
    }
    case 'remove': {
      const name = all(inputs)[o.at % Math.max(1, all(inputs).length)]?.metadata.name;
      state.inputs = mapInputs(inputs, (x) => (x.metadata.name === name ? undefined : x));
      return;
    }
    case 'revision': {
      const newest = state.revisions.at(-1);
      if (!newest) return;
      const status: NetworkConfigRevision['status'] =
        o.outcome === 'invalid'
          ? {
              isInvalid: true,
              failedNodes: [{ node: 'n1', message: 'down', at: '2025-01-01T00:00:00Z' }],
              ready: 0,
              total: 4,
            }
          : { completedAt: '2025-01-01T00:00:00Z', ready: 4, total: 4 };
      state.revisions = [...state.revisions.slice(0, -1), { ...newest, status }];
      return;
    }
  }
}

/** What a build decided, without the objects it was handed (the cached and fresh ones differ). */
const outcome = (r: BuildResult) => ({
  problems: r.problems,
  decision: r.decision,
  hash: r.hash,
  statuses: r.inputStatusUpdates.map(({ object, ...rest }) => ({
    of: `${object.kind}/${object.metadata.name}`,
    ...rest,
  })),
});

/** The objects without uid and resourceVersion, and copies of the revisions: nothing cached applies. */
const fresh = (i: Inputs, revisions: NetworkConfigRevision[]) => ({
  inputs: mapInputs(copied(i), (o) => ({
    ...o,
    metadata: { name: o.metadata.name, generation: o.metadata.generation },
  })),
  revisions: copied(revisions),
});

describe('revision build with warm caches', () => {
  it('decides, refuses and reports what a build of fresh objects does, step after step', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 14 }), (ops) => {
        const state: { inputs: Inputs; revisions: NetworkConfigRevision[]; last?: BuildResult } = {
          inputs: initial(),
          revisions: [],
        };
        const specs = new NodeSpecCache();
        for (const o of [{ op: 'statusWrite' } as Op, ...ops]) {
          apply(state, o);
          const opts = { nodeLabels: NODE_LABELS };
          const warm = buildRevision(state.inputs, state.revisions, NOW, opts);
          const cold = fresh(state.inputs, state.revisions);
          expect(outcome(warm)).toEqual(outcome(buildRevision(cold.inputs, cold.revisions, NOW, opts)));
          state.last = warm;
          if (warm.decision.action !== 'create') continue;
          const revision = warm.decision.revision;
          state.revisions = [...state.revisions, revision];
          const config = copied(revision.spec.config);
          for (const labels of NODE_LABELS)
            expect(canonicalJson(specs.spec(revision.spec, labels))).toBe(
              canonicalJson(nodeConfigSpec({ config, hash: revision.spec.hash }, labels)),
            );
        }
      }),
      { numRuns: 100 },
    );
  });
});
