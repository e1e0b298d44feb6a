/**
 * Invariant 10 as a property: whenever validation accepts an input set, building the revision,
 * every node's spec, the agent's netlink host model and the FRR config all succeed, and (on a
 * sample, against real FRR) `vtysh -C` accepts the rendered config. A failure prints the shrunk
 * counterexample. NODENET_PROPERTY_RUNS raises the number of cases (default 400 in CI).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  API_VERSION,
  buildConfig,
  configWithLoopbacks,
  nodeConfigSpec,
  validateInputs,
  type Inputs,
  type NodeConfigSpec,
} from '@nodenet/api';
import { allocateVrfTables, desiredModel, renderFrrConfig } from '@nodenet/agent';
import { describePrivileged } from '../support/privileged.js';
import { inputSets, NODE_LABELS } from './arbitraries.js';

const RUNS = Number(process.env.NODENET_PROPERTY_RUNS ?? 400);
const template = readFileSync(new URL('../../deploy/agent/frr.conf.tpl', import.meta.url), 'utf8');
const frrSettings = { asn: 4200065001, routerId: '10.50.0.11', vrfRouterId: '10.51.0.11' };
const hostSettings = { vtepAddress: '10.50.0.11' };
const NODES = NODE_LABELS.map((labels, i) => ({ name: `node-${i}`, labels }));

interface Applied {
  spec: NodeConfigSpec;
  conf: string;
}

/**
 * Everything an agent does with an accepted set before it touches the host, on every node: the
 * configurator's loopback allocation over NODES, then each node's spec, host model and FRR config.
 */
function applyOnEveryNode(inputs: Inputs): Applied[] {
  const revision = configWithLoopbacks(buildConfig(inputs), [], NODES);
  return NODES.map(({ name, labels }) => {
    const spec = nodeConfigSpec(revision, labels, name);
    const tables = allocateVrfTables({ vrfs: spec.vrf.map((v) => v.vrf) });
    desiredModel({ spec, settings: hostSettings, tables });
    const conf = renderFrrConfig(spec, frrSettings, template);
    // What the node got must be in its config: each loopback address in the export prefix-list,
    // a static route line in the VRF's block for each entry with routes.
    for (const v of spec.vrf) {
      for (const l of v.loopbackAddresses ?? [])
        expect(conf).toMatch(new RegExp(` permit ${l.address.replace(/\./g, '\\.')}/(32|128)$`, 'm'));
      if ((v.staticRoutes ?? []).length > 0) expect(conf).toMatch(/^ ipv?6? ?route /m);
    }
    return { spec, conf };
  });
}

/** Which of the new fields an accepted set exercised, on at least one node. */
function featuresOf(inputs: Inputs, applied: Applied[]): Set<string> {
  const seen = new Set<string>();
  if (applied.some((a) => a.conf.includes(' peer-group pp_'))) seen.add('peering');
  if (applied.some((a) => a.spec.vrf.some((v) => (v.loopbackAddresses ?? []).length > 0)))
    seen.add('loopback');
  const routes = applied.flatMap((a) => a.spec.vrf.flatMap((v) => v.staticRoutes ?? []));
  // A gateway the validation found in a gateway subnet (of this VRF or the one nextHopVRF names).
  if (routes.some((r) => r.nextHop !== undefined && r.onlink !== true)) seen.add('nextHop');
  if (routes.some((r) => r.nextHopVRF !== undefined)) seen.add('nextHopVRF');
  if (routes.some((r) => r.onlink === true)) seen.add('onlink');
  // A VRF selector that left the VRF off some node while others have it.
  const selected = inputs.vrf.filter((o) => o.spec.nodeSelector !== undefined).map((o) => o.spec.vrf);
  if (selected.some((vrf) => applied.some((a) => !a.spec.vrf.some((v) => v.vrf === vrf))))
    seen.add('vrfNodeSelector');
  return seen;
}

const FEATURES = ['peering', 'loopback', 'nextHop', 'nextHopVRF', 'onlink', 'vrfNodeSelector'];

/** How many accepted sets reached each feature (FEATURES) on some node. */
function countFeatures(sets: Inputs[]): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(FEATURES.map((f) => [f, 0]));
  for (const inputs of sets)
    if (validateInputs(inputs).length === 0)
      for (const f of featuresOf(inputs, applyOnEveryNode(inputs))) counts[f] = (counts[f] ?? 0) + 1;
  return counts;
}

describe('accepted inputs can be applied by every agent (property)', () => {
  it(`holds for ${RUNS} generated input sets, and the generator reaches accepted sets`, () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(inputSets, (inputs) => {
        if (validateInputs(inputs).length > 0) {
          refused++;
          return;
        }
        accepted++;
        applyOnEveryNode(inputs);
      }),
      { numRuns: RUNS, verbose: 1 },
    );
    // A generator that only produces refused sets would make the property vacuous.
    expect(accepted).toBeGreaterThan(RUNS / 10);
    expect(refused).toBeGreaterThan(0);
  });

  it('accepted sets carry BGPPeerings, static routes of each form, loopbacks and VRF node selectors that reach nodes (issue #28)', () => {
    // A fixed sample, large enough that the rarest feature (a gateway route: its set needs a valid
    // Layer-2 network with a gateway in the route's VRF) occurs a dozen times; fixed, so the
    // count is the same on every run.
    const counts = countFeatures(fc.sample(inputSets, { numRuns: 1000, seed: 28 }));
    console.info('accepted sets reaching each feature', counts);
    expect(Object.entries(counts).filter(([, n]) => n < 10)).toEqual([]);
  });
});

describe('loopback lines after the export lines (issue 44)', () => {
  /** One VRF object with the counterexample's shape: `export` ending at `seq`, one IPv4 loopback. */
  const loopbackAfterExport = (seq: number): Inputs => ({
    vrf: [
      {
        apiVersion: API_VERSION,
        kind: 'VRFRouteConfiguration',
        metadata: { name: 'vrf-0', creationTimestamp: '2026-01-01T00:00:00Z' },
        spec: {
          vrf: 'blue',
          vni: 100,
          seq: 10,
          export: [{ cidr: '172.16.0.0/27', seq, action: 'deny', ge: 32, le: 32 }],
          loopbacks: [{ name: 'lo', subnet: '10.255.4.148/32' }],
        },
      },
    ],
    layer2: [],
    routingTable: [],
  });

  it('refuses the counterexample of seed -1422204825, path "16:315:0" at the input, naming the export seq', () => {
    // Accepted before: the loopback's permit line would have needed sequence number 4294967296
    // and every agent's renderer threw.
    expect(validateInputs(loopbackAfterExport(4294967295)).map((p) => [p.field, p.value])).toEqual([
      ['spec.export[0].seq', 4294967295],
    ]);
  });

  it('renders the loopback line within range on every node when the export leaves exactly one number', () => {
    const inputs = loopbackAfterExport(4294967294);
    expect(validateInputs(inputs)).toEqual([]);
    const applied = applyOnEveryNode(inputs);
    // A /32 subnet has one address: one node gets it, and its line takes the last number.
    expect(applied.filter((a) => / seq 4294967295 permit 10\.255\.4\.148\/32$/m.test(a.conf))).toHaveLength(
      1,
    );
  });
});

describePrivileged(
  'rendered configs of accepted inputs pass vtysh -C (real FRR)',
  { commands: ['vtysh'] },
  () => {
    it('vtysh -C accepts a sample of rendered configs', () => {
      const dir = mkdtempSync(join(tmpdir(), 'nodenet-prop-'));
      try {
        const sample = fc
          .sample(
            inputSets.filter((i) => validateInputs(i).length === 0),
            { numRuns: 24, seed: 42 },
          )
          .flatMap((inputs) => applyOnEveryNode(inputs).map((a) => a.conf));
        expect(sample.length).toBeGreaterThan(0);
        expect(sample.some((conf) => conf.includes(' peer-group pp_'))).toBe(true);
        expect(sample.some((conf) => / ip route .* onlink/.test(conf))).toBe(true);
        expect(sample.some((conf) => / nexthop-vrf /.test(conf))).toBe(true);
        expect(sample.some((conf) => / ipv6 route /.test(conf))).toBe(true);
        // A loopback address in an export prefix-list (the pools of loopback subnets).
        expect(sample.some((conf) => / permit (10\.255\.|fd00:ff:)/.test(conf))).toBe(true);
        sample.forEach((conf, i) => {
          const file = join(dir, `frr-${i}.conf`);
          writeFileSync(file, conf);
          try {
            execFileSync('vtysh', ['-C', '-f', file], { encoding: 'utf8', stdio: 'pipe' });
          } catch (err) {
            const e = err as { stdout?: string; stderr?: string };
            throw new Error(
              `vtysh -C refused sample ${i}:\n${e.stdout ?? ''}${e.stderr ?? ''}\n--- config ---\n${conf}`,
            );
          }
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
