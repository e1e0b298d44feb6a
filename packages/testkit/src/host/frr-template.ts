/**
 * The FRR base template the tests and benchmarks run with: the one deploy/ ships
 * (deploy/agent/frr.conf.tpl), adapted to a test host. A test host has no fabric uplink on eth0, so
 * the FABRIC peering and `redistribute connected` go; what a test advertises it names as `network`
 * lines (with import-check off, since the prefixes need not be in the RIB). Every edit checks its
 * anchor, so a change to the deployed template that these edits no longer fit fails loudly here.
 */
import { readFileSync } from 'node:fs';

export const DEPLOY_TEMPLATE_FILE = new URL('../../../../deploy/agent/frr.conf.tpl', import.meta.url);
export const DEPLOY_TEMPLATE = readFileSync(DEPLOY_TEMPLATE_FILE, 'utf8');

export interface TestTemplateOptions {
  hostname: string;
  /** Prefixes the default BGP instance advertises (`network` lines), per address family. */
  ipv4Networks?: readonly string[];
  ipv6Networks?: readonly string[];
}

function edit(text: string, anchor: string | RegExp, replacement: string): string {
  const found = typeof anchor === 'string' ? text.includes(anchor) : anchor.test(text);
  if (!found) throw new Error(`${DEPLOY_TEMPLATE_FILE.pathname}: no longer contains ${String(anchor)}`);
  return text.replace(anchor, replacement);
}

export function testTemplate(o: TestTemplateOptions): string {
  let t = DEPLOY_TEMPLATE;
  t = edit(t, '! hostname is taken from the system\n', `hostname ${o.hostname}\n`);
  t = edit(t, /^interface eth0\n(?: .*\n)*exit\n!\n/m, '');
  t = edit(t, /^ +neighbor (?:FABRIC|eth0) .*\n/gm, '');
  t = edit(t, /^ +redistribute connected\n/gm, '');
  t = edit(
    t,
    ' bgp router-id {{ router_id }}\n',
    ' bgp router-id {{ router_id }}\n no bgp network import-check\n',
  );
  const networks = (list: readonly string[] | undefined): string =>
    (list ?? []).map((p) => `  network ${p}\n`).join('');
  t = edit(t, '  {{ bgp_default_ipv4 }}\n', `${networks(o.ipv4Networks)}  {{ bgp_default_ipv4 }}\n`);
  t = edit(t, '  {{ bgp_default_ipv6 }}\n', `${networks(o.ipv6Networks)}  {{ bgp_default_ipv6 }}\n`);
  return t;
}
