/**
 * Every kind of input the revision merges can be a suspect of a failed change (held-back/suspects.ts):
 * a kind missing there is never held back, so its bad change is re-carried by the next build after
 * the invalidation (issue 35: BGPPeering was missing; a password rotation that cut the sessions came
 * back with the next unrelated merge). `complete` names every list of `Inputs` (Required<Inputs>: a
 * new kind fails the typecheck here until it is added), and each of its objects must parse as a
 * suspect and find its entry in the merged config.
 */
import { describe, expect, it } from 'vitest';
import {
  allInputs,
  entryOf,
  mergeInputs,
  parseRef,
  type AgentConfiguration,
  type Inputs,
} from '@nodenet/api';
import { inputsWithPeerings } from './fixtures.js';

const agentConfig: AgentConfiguration = {
  apiVersion: 'network.nodenet.io/v1alpha1',
  kind: 'AgentConfiguration',
  metadata: { name: 'agents' },
  spec: { frrTemplate: 'frr defaults datacenter\n' },
};

function complete(): Required<Inputs> {
  const i = inputsWithPeerings();
  return {
    vrf: i.vrf,
    layer2: i.layer2,
    routingTable: i.routingTable,
    bgpPeering: i.bgpPeering ?? [],
    agentConfiguration: [agentConfig],
  };
}

describe('the suspect kinds cover every input the revision merges', () => {
  const inputs = complete();
  const config = mergeInputs(inputs) as unknown as Record<string, unknown>;

  it('every list of Inputs has objects here (so the checks below see every kind)', () => {
    for (const [list, objects] of Object.entries(inputs)) expect(objects.length, list).toBeGreaterThan(0);
  });

  it.each(allInputs(complete()).map((o) => [`${o.kind}/${o.metadata.name}`, o] as const))(
    '%s parses as a suspect and has its entry in the merged config',
    (_, o) => {
      const ref = parseRef(`${o.kind}/${o.metadata.name}@1`);
      expect(ref, o.kind).toEqual({ kind: o.kind, name: o.metadata.name, generation: 1 });
      expect(entryOf(mergeInputs(inputs), { kind: o.kind as never, name: o.metadata.name })).toBeDefined();
    },
  );

  it('every named list of the merged config belongs to a suspect kind', () => {
    const kinds = [...new Set(allInputs(inputs).map((o) => o.kind))];
    for (const [list, entries] of Object.entries(config)) {
      if (!Array.isArray(entries) || entries.length === 0) continue;
      const named = entries.filter((e): e is { name: string } => typeof e?.name === 'string');
      if (named.length === 0) continue;
      const found = kinds.some((kind) =>
        named.every((e) => entryOf(config as never, { kind: kind as never, name: e.name }) === e),
      );
      expect(found, `config.${list}`).toBe(true);
    }
  });
});
