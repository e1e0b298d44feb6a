/**
 * Names and sizes at the edges (issue #25): input sets whose VRF names, label keys and label values
 * are drawn from a list including JavaScript's special keys (`constructor`, `__proto__`, …) and sizes
 * at and one past each limit, some with a list at, just under or just over its maxItems. For every
 * set: validation does not throw, names the field of every problem with a bounded message, refuses
 * exactly what an independent oracle says is over a limit or reserved, and whatever it accepts every
 * agent can apply: each VRF gets a real table, selectors match as Kubernetes' do (own labels only).
 * NODENET_NAMES_PROPERTY_RUNS changes the number of cases (default 2,000).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildConfig,
  MAX_AGGREGATES,
  MAX_ANYCAST_GATEWAYS,
  MAX_LOOPBACKS,
  MAX_MATCH_EXPRESSIONS,
  MAX_MATCH_LABELS,
  MAX_MATCH_VALUES,
  MAX_PREFIX_LIST_ITEMS,
  MAX_STATIC_ROUTES,
  nodeConfigSpec,
  validateInputs,
  VRF_TABLE_RANGE,
  type Inputs,
  type LabelSelector,
} from '@nodenet/api';
import { allocateVrfTables, desiredModel, renderFrrConfig } from '@nodenet/agent';
import { inputSets, NODE_LABELS } from './arbitraries.js';

const RUNS = Number(process.env.NODENET_NAMES_PROPERTY_RUNS ?? 2000);
const FRR_SETTINGS = { asn: 4200065001, routerId: '10.50.0.11', vrfRouterId: '10.51.0.11' };
const template = readFileSync(new URL('../../deploy/agent/frr.conf.tpl', import.meta.url), 'utf8');

// ---- independent oracles (Kubernetes' definitions, written out here, not imported)
const PROTOTYPE_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype));
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const isLabelName = (s: string): boolean => s.length <= 63 && LABEL_NAME.test(s);
function isLabelKey(key: string): boolean {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const name = parts.pop()!;
  const prefix = parts[0];
  if (prefix !== undefined) {
    if (prefix.length > 253) return false;
    if (!prefix.split('.').every((l) => l.length <= 63 && DNS_LABEL.test(l))) return false;
  }
  return isLabelName(name);
}
const isLabelValue = (v: string): boolean => v === '' || isLabelName(v);

function selectorIsValid(sel: LabelSelector | undefined): boolean {
  if (!sel) return true;
  const labels = Object.entries(sel.matchLabels ?? {});
  const exprs = sel.matchExpressions ?? [];
  return (
    labels.length <= MAX_MATCH_LABELS &&
    labels.every(([k, v]) => isLabelKey(k) && isLabelValue(v)) &&
    exprs.length <= MAX_MATCH_EXPRESSIONS &&
    exprs.every(
      (e) =>
        isLabelKey(e.key) &&
        (e.values ?? []).length <= MAX_MATCH_VALUES &&
        (e.values ?? []).every(isLabelValue),
    )
  );
}

/** Kubernetes' selector semantics on a Map of the node's own labels. */
function referenceMatch(sel: LabelSelector | undefined, nodeLabels: Record<string, string>): boolean {
  const labels = new Map(Object.entries(nodeLabels));
  if (!sel) return true;
  const byLabels = Object.entries(sel.matchLabels ?? {}).every(([k, v]) => labels.get(k) === v);
  return (
    byLabels &&
    (sel.matchExpressions ?? []).every((e) => {
      const has = labels.has(e.key);
      const values = e.values ?? [];
      if (e.operator === 'In') return has && values.includes(labels.get(e.key)!);
      if (e.operator === 'NotIn') return !has || !values.includes(labels.get(e.key)!);
      if (e.operator === 'Exists') return has;
      return !has;
    })
  );
}

// ---- one list at, just under or just over its limit, on the first object that has it
type Edge = { list: string; size: number; limit: number };
const edge: fc.Arbitrary<Edge | undefined> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          { list: 'import', limit: MAX_PREFIX_LIST_ITEMS },
          { list: 'aggregate', limit: MAX_AGGREGATES },
          { list: 'staticRoutes', limit: MAX_STATIC_ROUTES },
          { list: 'loopbacks', limit: MAX_LOOPBACKS },
          { list: 'anycastGateways', limit: MAX_ANYCAST_GATEWAYS },
          { list: 'matchExpressions', limit: MAX_MATCH_EXPRESSIONS },
          { list: 'values', limit: MAX_MATCH_VALUES },
          { list: 'matchLabels', limit: MAX_MATCH_LABELS },
        ),
        fc.constantFrom(-1, 0, 1),
      )
      .map(([l, d]) => ({ ...l, size: l.limit + d })),
  },
);

const net = (n: number, last: number, len: number): string =>
  `10.${100 + Math.floor(n / 256)}.${n % 256}.${last}/${len}`;

/** Puts the edge list into the set; returns the kind and name of the object that got it. */
function applyEdge(inputs: Inputs, e: Edge): string | undefined {
  const v = inputs.vrf[0];
  const l = inputs.layer2[0];
  const range = Array.from({ length: e.size }, (_, n) => n);
  switch (e.list) {
    case 'import':
      if (!v) return undefined;
      v.spec.import = range.map((n) => ({ cidr: net(n, 0, 24), seq: n + 1, action: 'permit' as const }));
      return `VRFRouteConfiguration ${v.metadata.name}`;
    case 'aggregate':
      if (!v) return undefined;
      v.spec.aggregate = range.map((n) => net(n, 0, 24));
      return `VRFRouteConfiguration ${v.metadata.name}`;
    case 'staticRoutes':
      if (!v) return undefined;
      v.spec.staticRoutes = range.map((n) => ({ prefix: net(n, 0, 24), nextHop: '192.0.2.1', onlink: true }));
      return `VRFRouteConfiguration ${v.metadata.name}`;
    case 'loopbacks':
      if (!v) return undefined;
      v.spec.loopbacks = range.map((n) => ({ name: `lo${n}`, subnet: net(n, 0, 24) }));
      return `VRFRouteConfiguration ${v.metadata.name}`;
    default:
      if (!l) return undefined;
      if (e.list === 'anycastGateways') {
        l.spec.anycastGateways = range.map((n) => net(n, 1, 24));
        l.spec.anycastMac = '02:00:5e:00:01:01';
      } else if (e.list === 'matchExpressions') {
        l.spec.nodeSelector = { matchExpressions: range.map((n) => ({ key: `k${n}`, operator: 'Exists' })) };
      } else if (e.list === 'values') {
        l.spec.nodeSelector = {
          matchExpressions: [{ key: 'rack', operator: 'In', values: range.map((n) => `r${n}`) }],
        };
      } else {
        l.spec.nodeSelector = { matchLabels: Object.fromEntries(range.map((n) => [`k${n}`, 'v'])) };
      }
      return `Layer2NetworkConfiguration ${l.metadata.name}`;
  }
}

describe('names and sizes at the edges (property)', () => {
  it(`holds for ${RUNS} generated input sets`, () => {
    const seen = {
      accepted: 0,
      refused: 0,
      specialVrfRefused: 0,
      specialLabelAccepted: 0,
      edgeOver: 0,
      edgeAt: 0,
    };
    fc.assert(
      fc.property(inputSets, edge, (generated, e) => {
        // Generated values are shared with shrinking: edit a copy.
        const inputs = structuredClone(generated);
        const edgeHolder = e ? applyEdge(inputs, e) : undefined;
        const problems = validateInputs(inputs);
        for (const p of problems) {
          expect(p.field).toMatch(/^spec(\.|$)/);
          expect(p.message.length).toBeLessThan(2000);
        }
        const refusedObjects = new Set(problems.map((p) => `${p.kind} ${p.name}`));
        // Reserved VRF names are refused (naming spec.vrf unless the object failed its schema first).
        for (const o of inputs.vrf) {
          if (PROTOTYPE_KEYS.has(o.spec.vrf)) {
            expect(refusedObjects.has(`VRFRouteConfiguration ${o.metadata.name}`)).toBe(true);
            if (!problems.some((p) => p.name === o.metadata.name && p.field !== 'spec.vrf')) {
              expect(problems.some((p) => p.name === o.metadata.name && p.field === 'spec.vrf')).toBe(true);
            }
            seen.specialVrfRefused++;
          }
        }
        // Selectors the oracle calls invalid are refused; over-limit lists are refused naming the list.
        for (const o of inputs.layer2) {
          if (!selectorIsValid(o.spec.nodeSelector)) {
            expect(refusedObjects.has(`Layer2NetworkConfiguration ${o.metadata.name}`)).toBe(true);
          }
        }
        if (e && edgeHolder) {
          const sizeProblem = problems.find(
            (p) =>
              `${p.kind} ${p.name}` === edgeHolder && p.message.includes(`must have at most ${e.limit} `),
          );
          expect(Boolean(sizeProblem)).toBe(e.size > e.limit);
          if (e.size > e.limit) seen.edgeOver++;
          else seen.edgeAt++;
        }
        if (problems.length > 0) {
          seen.refused++;
          return;
        }
        seen.accepted++;
        const { config, hash } = buildConfig(inputs);
        // One table allocation and one FRR config over every VRF (a node gets a subset of them).
        const vrfs = config.vrf.map((x) => x.vrf);
        const tables = allocateVrfTables({ vrfs, reserved: config.routingTable.map((r) => r.tableId) });
        for (const vrf of vrfs) {
          const t = tables.get(vrf);
          expect(Number.isInteger(t) && t! >= VRF_TABLE_RANGE.min && t! <= VRF_TABLE_RANGE.max).toBe(true);
        }
        renderFrrConfig({ vrf: config.vrf, routingTable: config.routingTable }, FRR_SETTINGS, template);
        for (const labels of NODE_LABELS) {
          const spec = nodeConfigSpec({ config, hash }, labels);
          // A VRF reaches the node exactly when one of its objects' selectors matches it.
          const reached = new Set(
            inputs.vrf.filter((o) => referenceMatch(o.spec.nodeSelector, labels)).map((o) => o.spec.vrf),
          );
          expect(new Set(spec.vrf.map((x) => x.vrf))).toEqual(reached);
          const got = new Set(spec.layer2.map((l) => l.name));
          for (const entry of config.layer2) {
            expect(got.has(entry.name)).toBe(referenceMatch(entry.nodeSelector, labels));
            const keys = [
              ...Object.keys(entry.nodeSelector?.matchLabels ?? {}),
              ...(entry.nodeSelector?.matchExpressions ?? []).map((x) => x.key),
            ];
            if (keys.some((k) => PROTOTYPE_KEYS.has(k))) seen.specialLabelAccepted++;
          }
          desiredModel({ spec, settings: { vtepAddress: '10.50.0.11' }, tables });
        }
      }),
      { numRuns: RUNS },
    );
    // The generator reaches every region the property speaks about.
    expect(seen.accepted).toBeGreaterThan(RUNS / 10);
    expect(seen.refused).toBeGreaterThan(RUNS / 10);
    expect(seen.specialVrfRefused).toBeGreaterThan(0);
    expect(seen.specialLabelAccepted).toBeGreaterThan(0);
    expect(seen.edgeOver).toBeGreaterThan(0);
    expect(seen.edgeAt).toBeGreaterThan(0);
  }, 600_000);
});
