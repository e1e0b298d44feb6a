/**
 * The host plan (issue 39): golden plan text and class per kind of change (one case per class at
 * least), the plan equal to what the agent's own diff and renderer produce, the fleet grouping,
 * and the warning for an address the node must keep reaching. UPDATE_GOLDEN=1 rewrites the files.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DISRUPTION_CLASSES,
  countsText,
  fleetHostPlan,
  hostPlan,
  hostPlanLines,
  type HostPlanSettings,
} from '../src/index.js';
import { HOST_PLAN_CASES, l2 } from './host-plan-cases.js';

const goldenDir = new URL('./golden/host-plan/', import.meta.url);
const template = readFileSync(new URL('./golden/frr/base.conf.tpl', import.meta.url), 'utf8');
const settings: HostPlanSettings = {
  host: { vtepAddress: '10.50.0.1' },
  frr: { asn: 65000, routerId: '10.50.0.11', vrfRouterId: '10.51.0.11' },
};
const update = process.env.UPDATE_GOLDEN === '1';

describe('host plan: golden plans', () => {
  for (const [name, c] of Object.entries(HOST_PLAN_CASES)) {
    it(`${name}: ${c.class}, plan as in golden/host-plan/${name}.txt`, () => {
      const plan = hostPlan({ previous: c.previous, next: c.next, template, settings });
      const text = [`class: ${plan.disruption}`, ...hostPlanLines(plan)].join('\n') + '\n';
      const file = new URL(`${name}.txt`, goldenDir);
      if (update) writeFileSync(file, text);
      expect(text).toBe(readFileSync(file, 'utf8'));
      expect(plan.disruption).toBe(c.class);
    });
  }

  it('has a case for every disruption class', () => {
    const classes = new Set(Object.values(HOST_PLAN_CASES).map((c) => c.class));
    expect([...classes].sort()).toEqual([...DISRUPTION_CLASSES].sort());
  });

  it('plans nothing for the same spec, and the reverse of a change undoes it', () => {
    const c = HOST_PLAN_CASES['vni-change']!;
    const same = hostPlan({ previous: c.next, next: c.next, template, settings });
    expect(hostPlanLines(same)).toEqual(['no change on the host']);
    const back = hostPlan({ previous: c.next, next: c.previous, template, settings });
    expect(back.netlink.map((s) => `${s.action} ${s.device}`)).toEqual([
      'delete vx.1200',
      'create vx.1100',
      'change vx.1100',
    ]);
  });
});

describe('host plan: refusals and warnings', () => {
  it('a spec the agent refuses is a plan with the reason and no steps', () => {
    const long = l2({ id: 100, mtu: 1500 });
    const clash = { vrf: [], routingTable: [], layer2: [long, { ...long, name: 'other' }] };
    const plan = hostPlan({ previous: undefined, next: clash, template, settings });
    expect(plan.error).toMatch(/already used by/);
    expect(hostPlanLines(plan)).toEqual([`refused by the agent: ${plan.error}`]);
  });

  it('an anycast gateway on an address the node must reach is named for what it is', () => {
    const next = { vrf: [], routingTable: [], layer2: [l2({ anycastGateways: ['10.98.0.2/24'] })] };
    const protectedAddresses = [
      { address: '10.98.0.2', what: 'the API server' },
      { address: '10.98.0.1', what: "node-1's InternalIP" },
      { address: '10.99.0.1', what: 'elsewhere' },
    ];
    const plan = hostPlan({ previous: undefined, next, template, settings, protectedAddresses });
    expect(plan.warnings).toEqual([
      'l2.100 takes 10.98.0.2/24, the address of the API server: this node answers for it itself and no longer reaches it',
      "l2.100 gets 10.98.0.2/24, whose subnet holds 10.98.0.1 (node-1's InternalIP): this node sends that traffic to l2.100",
    ]);
  });
});

describe('host plan: a fleet', () => {
  it('groups nodes with the same plan, counts nodes per class, plans each distinct pair once', () => {
    const add = HOST_PLAN_CASES['add-l2']!;
    const vni = HOST_PLAN_CASES['vni-change']!;
    const nodes = [
      ...Array.from({ length: 37 }, (_, i) => ({ node: `node-${String(i + 1).padStart(3, '0')}`, ...add })),
      ...Array.from({ length: 3 }, (_, i) => ({ node: `node-${100 + i}`, ...vni })),
      { node: 'node-200', previous: vni.next, next: vni.next },
    ];
    const fleet = fleetHostPlan({ nodes, template, settings });
    expect(fleet.distinctPairs).toBe(3);
    expect(fleet.groups.map((g) => [g.nodes.length, g.nodes[0], g.plan.disruption])).toEqual([
      [3, 'node-100', 'l2-interruption'],
      [37, 'node-001', 'none'],
    ]);
    expect(fleet.disruption).toBe('l2-interruption');
    expect(countsText(fleet.counts, fleet.disruption)).toBe(
      '41 nodes: 1 unchanged, 37 none, 3 l2-interruption (worst: l2-interruption)',
    );
  });
});
