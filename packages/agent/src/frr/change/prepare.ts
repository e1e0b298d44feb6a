/**
 * Why new VRFs are created before frr-reload.py runs (the 50-VRF failure of issue #14).
 *
 * frr-reload.py (FRR 8.4) sends the lines it adds to contexts that already run (e.g. the leaking
 * session's `neighbor vd.x …` inside the existing `router bgp ASN`) before whole new contexts, all in
 * one file for `vtysh -f`, without leaving the last context. The first new `vrf vr.x` block then
 * arrives while vtysh is still inside `router bgp`, where `vrf` abbreviates bgpd's `vrf-policy`: the
 * VRF is not created, and its ` vni N` falls through to the top level, where zebra takes it as the
 * default VRF's L3 VNI. The second pass sends the block again and zebra refuses it ("VNI N is already
 * configured as L3-VNI"), so frr-reload.py fails; the `route-map … does not exist` lines printed on
 * the way are warnings from the same ordering (neighbor lines before the new route-maps). Any change
 * that adds a VRF to a running config hits it (10 → 50 VRFs did); a reload from an empty FRR does not.
 * A template with a `hostname` line hides it by luck: FRR never shows the configured host name, so
 * frr-reload.py re-sends that line, from the top level, just before the new `vrf` blocks.
 *
 * Creating the missing `vrf` contexts first (one vtysh run, from the top level) leaves frr-reload.py
 * no new `vrf` context to place. Pure: which commands; the driver runs them.
 */
import type { ConfigFacts } from '../text/index.js';

/** `configure` lines that create the VRFs `expected` has and `running` lacks, with their VNI when free. */
export function vrfPreparation(expected: ConfigFacts, running: ConfigFacts): string[] {
  const vnisInUse = new Set([...running.vrfs.values()].filter((v) => v !== undefined));
  const out: string[] = [];
  for (const [vrf, vni] of expected.vrfs) {
    if (running.vrfs.has(vrf)) continue;
    out.push(`vrf ${vrf}`);
    // A VNI another VRF still holds moves in frr-reload.py's own order (its `no vni` runs first).
    if (vni !== undefined && !vnisInUse.has(vni)) out.push(`vni ${vni}`);
    out.push('exit-vrf');
  }
  return out;
}

/**
 * `no router bgp ASN vrf X` for the VRF instances FRR still runs and `expected` no longer has. Run
 * after the reload: frr-reload.py deletes such an instance before it removes the default instance's
 * `import vrf X`, and bgpd keeps an instance another one still imports, so a removed routing table's
 * instance would otherwise stay.
 */
export function staleBgpInstances(expected: ConfigFacts, running: ConfigFacts): string[] {
  return [
    ...[...running.bgpInstances]
      .filter(([name]) => name !== 'default' && !expected.bgpInstances.has(name))
      .map(([, line]) => `no ${line}`),
    ...staleBfd(expected, running),
  ];
}

/**
 * `no bfd` when the last BFD profile went and the file has no `bfd` block: bfdd keeps showing an
 * empty `bfd` block once it was entered, and frr-reload.py removes it only on the next reload, so
 * a reload would leave a difference behind (BGPPeering BFD, issue #28).
 */
function staleBfd(expected: ConfigFacts, running: ConfigFacts): string[] {
  return expected.bfd === 'none' && running.bfd === 'empty' ? ['no bfd'] : [];
}
