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
import { buildConfig, nodeConfigSpec, validateInputs, type Inputs } from '@nodenet/api';
import { allocateVrfTables, desiredModel, renderFrrConfig } from '@nodenet/agent';
import { describePrivileged } from '../support/privileged.js';
import { inputSets, NODE_LABELS } from './arbitraries.js';

const RUNS = Number(process.env.NODENET_PROPERTY_RUNS ?? 400);
const template = readFileSync(new URL('../../deploy/agent/frr.conf.tpl', import.meta.url), 'utf8');
const frrSettings = { asn: 4200065001, routerId: '10.50.0.11', vrfRouterId: '10.51.0.11' };
const hostSettings = { vtepAddress: '10.50.0.11' };

/** Everything an agent does with an accepted set before it touches the host; returns the FRR configs. */
function applyOnEveryNode(inputs: Inputs): string[] {
  const { config, hash } = buildConfig(inputs);
  return NODE_LABELS.map((labels) => {
    const spec = nodeConfigSpec({ config, hash }, labels);
    const tables = allocateVrfTables({ vrfs: spec.vrf.map((v) => v.vrf) });
    desiredModel({ spec, settings: hostSettings, tables });
    return renderFrrConfig(spec, frrSettings, template);
  });
}

describe('accepted inputs can be applied by every agent (property)', () => {
  it(`holds for ${RUNS} generated input sets, and the generator reaches accepted sets`, () => {
    let accepted = 0;
    let refused = 0;
    let peered = 0;
    fc.assert(
      fc.property(inputSets, (inputs) => {
        if (validateInputs(inputs).length > 0) {
          refused++;
          return;
        }
        accepted++;
        if (applyOnEveryNode(inputs).some((conf) => conf.includes(' peer-group pp_'))) peered++;
      }),
      { numRuns: RUNS, verbose: 1 },
    );
    // A generator that only produces refused sets would make the property vacuous.
    expect(accepted).toBeGreaterThan(RUNS / 10);
    expect(refused).toBeGreaterThan(0);
    // Accepted BGPPeerings reach nodes and render (issue #28).
    expect(peered).toBeGreaterThan(RUNS / 20);
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
            { numRuns: 12, seed: 42 },
          )
          .flatMap(applyOnEveryNode);
        expect(sample.length).toBeGreaterThan(0);
        expect(sample.some((conf) => conf.includes(' peer-group pp_'))).toBe(true);
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
