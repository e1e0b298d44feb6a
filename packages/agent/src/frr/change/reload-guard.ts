/**
 * Why some neighbour route-map lines are removed before frr-reload.py runs (issue #28).
 *
 * frr-reload.py of FRR 8.4 crashes (`UnboundLocalError: … 'rm_match'` in
 * `ignore_delete_re_add_lines`) when the lines it deletes include a `neighbor X route-map M in|out`
 * under `router bgp` and the first `router bgp` entry of the lines it adds is a whole new context: it
 * lists the lines added to contexts FRR already runs first and new contexts (`(keys, None)`) after
 * them, and assigns `rm_match` only for entries with a line. A revision that takes a neighbour's
 * policy away in one address-family and adds a context FRR did not show (an address-family that was
 * empty, a new instance) without adding a line to a running one hits it, e.g. a peering moved from
 * IPv4 to IPv6 under `no bgp default ipv4-unicast`. When the new context follows other additions,
 * the stale `rm_match` of an earlier line is read instead. Fixed upstream after 10.4
 * (FRRouting/frr#22060); Debian's 8.4.4 has it.
 *
 * So whenever the file adds a `router bgp` context, the route-map lines frr-reload.py would delete
 * anyway (the neighbour keeps no route-map of that direction in that context) are removed first, in
 * one vtysh run with the VRF preparation, and frr-reload.py never sees them. A line replaced by
 * another route-map of the same direction is left to frr-reload.py, which swaps it without a gap.
 * Pure: which commands; the driver runs them.
 */
import type { ParsedConfig } from '../text/index.js';

const NEIGHBOR_ROUTE_MAP = /^neighbor (\S+) route-map \S+ (in|out)$/;

const isBgp = (keys: readonly string[]): boolean => keys[0]!.startsWith('router bgp ');

/** `configure` lines (from the top level) removing the route-map lines described above; empty when none. */
export function routeMapRemovals(running: ParsedConfig, file: ParsedConfig): string[] {
  const addsContext = [...file.values()].some((c) => isBgp(c.keys) && !running.has(c.keys.join('\n')));
  if (!addsContext) return [];
  const out: string[] = [];
  for (const [key, ctx] of running) {
    if (!isBgp(ctx.keys)) continue;
    const kept = new Set(
      (file.get(key)?.lines ?? []).flatMap((l) => {
        const m = NEIGHBOR_ROUTE_MAP.exec(l);
        return m ? [`${m[1]} ${m[2]}`] : [];
      }),
    );
    const gone = ctx.lines.filter((l) => {
      const m = NEIGHBOR_ROUTE_MAP.exec(l);
      return m !== null && !kept.has(`${m[1]} ${m[2]}`);
    });
    if (gone.length > 0) out.push(...ctx.keys, ...gone.map((l) => `no ${l}`), ...ctx.keys.map(() => 'exit'));
  }
  return out;
}
