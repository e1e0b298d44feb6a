/**
 * The host plan against what the agent's drivers then do on a real host (issue 39): for each kind of
 * change (packages/agent/test/host-plan-cases.ts), the host is first converged on the previous spec,
 * the plan is computed, the new spec is applied, and
 *  - netlink (a network namespace, the agent's netlink driver): the operations the driver carried
 *    out are the plan's, one for one;
 *  - FRR (a real FRR in a network namespace, the agent's FRR driver): the difference between FRR's
 *    running config before and after is the plan's lines, and the driver took the plan's path
 *    (fast path or frr-reload.py).
 * This kernel has no VRF devices: the netlink half of the VRF cases (vrf-added, loopback-added,
 * loopback-removed, route-map-entry, prefix-removed, vrf-vni-change) runs in the VM
 * (test/vm/netlink-vm.test.ts, 'host plan (issue 39)…'); their FRR half runs
 * here (FRR takes a VRF's configuration without the kernel device).
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { diffConfigs, FrrDriver, hostPlan, parseConfig, type HostPlan } from '@nodenet/agent';
import {
  eventually,
  FRR_PREREQUISITES,
  startFrr,
  testTemplate,
  type FrrNetnsInstance,
} from '@nodenet/testkit';
import { HOST_PLAN_CASES } from '../../packages/agent/test/host-plan-cases.js';
import { addNetns, delNetns, startDriver, uniqueNetns, type DriverClient } from '../host-netlink/netns.js';
import { describePrivileged } from '../support/privileged.js';

const VTEP = '10.50.0.1';
const frrSettings = { asn: 65000, routerId: '10.255.0.1', vrfRouterId: '10.255.1.1' };
const template = testTemplate({ hostname: 'nn-plan' });
const EMPTY = { vrf: [], layer2: [], routingTable: [] };

const planOf = (name: string): HostPlan => {
  const c = HOST_PLAN_CASES[name]!;
  return hostPlan({
    previous: c.previous,
    next: c.next,
    template,
    settings: { host: { vtepAddress: VTEP }, frr: frrSettings },
  });
};

/** `+ context / line` per line; a context without lines as its header. */
const items = (change: string, context: readonly string[], what: string | readonly string[]): string[] => {
  const sign = change === 'add' ? '+' : '-';
  if (typeof what === 'string') return [`${sign} ${[...context, what].join(' / ')}`];
  return what.length > 0
    ? what.map((l) => `${sign} ${[...context, l].join(' / ')}`)
    : [`${sign} ${context.join(' / ')}`];
};

const NETLINK_CASES = Object.entries(HOST_PLAN_CASES)
  .filter(([, c]) => !c.vrf)
  .map(([name]) => name);

describePrivileged('host plan = what the netlink driver does', { root: true, commands: ['ip'] }, () => {
  const ns = uniqueNetns('plan');
  let driver: DriverClient;
  beforeAll(() => {
    addNetns(ns);
    driver = startDriver(ns, { vtepAddress: VTEP });
  });
  afterAll(async () => {
    await driver?.close();
    delNetns(ns);
  });

  it.each(NETLINK_CASES)('%s: the operations carried out are the plan', async (name) => {
    const c = HOST_PLAN_CASES[name]!;
    await driver.apply(EMPTY);
    await driver.apply(c.previous);
    expect((await driver.plan(c.previous)).operations).toEqual([]);
    const plan = planOf(name);
    const res = await driver.apply(c.next);
    expect(res.applied).toEqual(plan.netlink.map((s) => s.operation));
    expect(plan.disruption).toBe(c.class);
  });
});

describePrivileged('host plan = what the FRR driver applies', FRR_PREREQUISITES, () => {
  const ns = `nnhp${process.pid % 100000}`;
  let frr: FrrNetnsInstance;
  let driver: FrrDriver;
  const running = (): ReturnType<typeof parseConfig> => parseConfig(frr.vtysh('show running-config'));

  beforeAll(async () => {
    execFileSync('ip', ['netns', 'add', ns]);
    execFileSync('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    frr = startFrr(ns, ns);
    driver = new FrrDriver({
      template,
      settings: frrSettings,
      confdir: frr.confdir,
      pathspace: frr.name,
      rundir: frr.rundir,
    });
    await eventually(async () => (await driver.status()).answering, 20_000);
  }, 60_000);
  afterAll(() => {
    frr?.stop();
    try {
      execFileSync('ip', ['netns', 'del', ns]);
    } catch {
      /* not created */
    }
  });

  it.each(Object.keys(HOST_PLAN_CASES))(
    '%s: the difference FRR runs is the plan, applied by the plan path',
    async (name) => {
      const c = HOST_PLAN_CASES[name]!;
      await driver.applySpec(c.previous);
      const before = running();
      const plan = planOf(name);
      const res = await driver.applySpec(c.next);
      const after = running();
      const d = diffConfigs(before, after);
      // Compared line by line, a whole context as its lines (or its header when it has none): FRR
      // leaves an empty address-family out of its running config, so where the files differ by
      // lines in it, FRR's before and after differ by the whole block.
      const seen = [
        ...d.toDelete.flatMap((x) => items('remove', x.keys, x.line ?? before.get(x.keys.join('\n'))!.lines)),
        ...d.toAdd.flatMap((x) => items('add', x.keys, x.line ?? after.get(x.keys.join('\n'))!.lines)),
      ];
      const planned = plan.frr.steps.flatMap((s) => items(s.change, s.context, s.line ?? s.lines!));
      expect(seen.sort()).toEqual(planned.sort());
      const path = { unchanged: undefined, 'fast-path': 'fast', 'frr-reload.py': 'reload' }[plan.frr.path];
      expect(res.changed ? res.path : undefined).toBe(path);
    },
    60_000,
  );
});
