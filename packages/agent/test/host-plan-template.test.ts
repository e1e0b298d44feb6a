/**
 * The host plan renders each side with the template its NodeConfig carries (issue #36): an
 * AgentConfiguration change is a change on the host like any other, shown by `diff --host`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NodeConfigSpec } from '@nodenet/api';
import { fleetHostPlan, hostPlan, hostPlanLines, type HostPlanSettings } from '../src/index.js';

const template = readFileSync(new URL('./golden/frr/base.conf.tpl', import.meta.url), 'utf8');
const settings: HostPlanSettings = {
  host: { vtepAddress: '10.50.0.1' },
  frr: { asn: 65000, routerId: '10.50.0.11', vrfRouterId: '10.51.0.11' },
};
const withTemplate = (frrTemplate: string): Omit<NodeConfigSpec, 'revision'> => ({
  vrf: [],
  layer2: [],
  routingTable: [],
  agent: { name: 'default', frrTemplate },
});
const EXTRA = 'ip prefix-list nn-extra seq 5 permit 10.9.0.0/16';

describe('host plan: the template of the NodeConfig', () => {
  it('a template change is a plan of its FRR lines; the same template is no change', () => {
    const before = withTemplate(template);
    const after = withTemplate(`${template.trimEnd()}\n${EXTRA}\n`);
    const plan = hostPlan({ previous: before, next: after, template, settings });
    expect(plan.frr.steps.map((s) => s.change)).toEqual(['add']);
    expect(hostPlanLines(plan).join('\n')).toContain(EXTRA);
    expect(hostPlanLines(hostPlan({ previous: after, next: after, template, settings }))).toEqual([
      'no change on the host',
    ]);
  });

  it("templateOverride renders both sides with the caller's template, whatever the specs carry (diff --host --frr-template)", () => {
    const before = withTemplate(template);
    const after = withTemplate(`${template.trimEnd()}\n${EXTRA}\n`);
    const plan = hostPlan({ previous: before, next: after, template, templateOverride: true, settings });
    expect(hostPlanLines(plan)).toEqual(['no change on the host']);
    const fleet = fleetHostPlan({
      nodes: [{ node: 'a', previous: before, next: after }],
      template,
      templateOverride: true,
      settings,
    });
    expect(fleet.counts.unchanged).toBe(1);
  });

  it('nodes with different templates get different plans', () => {
    const before = withTemplate(template);
    const fleet = fleetHostPlan({
      nodes: [
        { node: 'a', previous: before, next: withTemplate(`${template.trimEnd()}\n${EXTRA}\n`) },
        { node: 'b', previous: before, next: before },
      ],
      template,
      settings,
    });
    expect(fleet.counts.unchanged).toBe(1);
    expect(fleet.groups.map((g) => g.nodes)).toEqual([['a']]);
  });
});
