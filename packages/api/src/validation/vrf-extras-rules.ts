/**
 * Rules about one VRFRouteConfiguration's node selector, static routes and loopbacks, after its
 * schema check passed. What needs other objects (gateway subnets, the VRF a next hop names) is in
 * vrf-reach.ts.
 */
import type { VRFRouteConfiguration } from '../resources/objects.js';
import {
  checkNetworkPrefix,
  normalizeAddress,
  normalizePrefix,
  parsePrefix,
  prefixesOverlap,
} from '../grammar/prefix.js';
import { MAX_PREFIX_SEQ } from '../grammar/limits.js';
import { checkSelector } from './selector-rules.js';
import { claim, problem, type Problem } from './problem.js';

type Rule = (o: VRFRouteConfiguration) => Problem[];

const VRF = 'VRFRouteConfiguration';

/** The family of a bare address, or the reason it is not one. */
export function parseAddress(text: string): { family: 4 | 6 } | { reason: string } {
  const r = parsePrefix(`${text}/${text.includes(':') ? 128 : 32}`);
  return r.ok ? { family: r.prefix.family } : { reason: r.reason };
}

const familyOf = (prefix: string): 4 | 6 | undefined => {
  const r = parsePrefix(prefix);
  return r.ok ? r.prefix.family : undefined;
};

export const vrfSelector: Rule = ({ metadata, spec }) =>
  spec.nodeSelector ? checkSelector(VRF, metadata.name, 'spec.nodeSelector', spec.nodeSelector) : [];

export const vrfStaticRoutes: Rule = ({ metadata, spec }) => {
  const out: Problem[] = [];
  const seen = new Map<string, number>();
  const add = (field: string, value: unknown, reason: string): number =>
    out.push(problem({ kind: VRF, name: metadata.name }, field, value, reason));
  (spec.staticRoutes ?? []).forEach((r, i) => {
    const at = `spec.staticRoutes[${i}]`;
    const bad = checkNetworkPrefix(r.prefix);
    if (bad) add(`${at}.prefix`, r.prefix, bad);
    if (r.nextHop === undefined && r.nextHopVRF === undefined)
      add(`${at}.nextHop`, undefined, 'is required unless nextHopVRF is set');
    else if (r.nextHop === undefined && r.nextHopVRF === 'default')
      add(
        `${at}.nextHop`,
        undefined,
        'is required with nextHopVRF default (the default VRF has no device to route into)',
      );
    if (r.nextHop !== undefined) {
      const a = parseAddress(r.nextHop);
      const family = familyOf(r.prefix);
      if ('reason' in a) add(`${at}.nextHop`, r.nextHop, a.reason);
      else if (family !== undefined && a.family !== family)
        add(`${at}.nextHop`, r.nextHop, `is IPv${a.family}, but the prefix ${r.prefix} is IPv${family}`);
    }
    if (r.onlink === true && r.nextHop === undefined)
      add(`${at}.onlink`, r.onlink, 'needs a nextHop address');
    if (r.nextHopVRF === spec.vrf)
      add(`${at}.nextHopVRF`, r.nextHopVRF, 'names this VRF itself; leave nextHopVRF out for that');
    const key = `${normalizePrefix(r.prefix)} ${r.nextHopVRF ?? ''} ${r.nextHop === undefined ? '' : normalizeAddress(r.nextHop)}`;
    const first = claim(seen, key, i);
    if (first !== undefined)
      add(`${at}.prefix`, r.prefix, `duplicates spec.staticRoutes[${first}] (same prefix, next hop and VRF)`);
  });
  return out;
};

export const vrfLoopbacks: Rule = ({ metadata, spec }) => {
  const out: Problem[] = [];
  const names = new Map<string, number>();
  const list = spec.loopbacks ?? [];
  list.forEach((l, i) => {
    const at = `spec.loopbacks[${i}]`;
    const first = claim(names, l.name, i);
    if (first !== undefined)
      out.push(
        problem(
          { kind: VRF, name: metadata.name },
          `${at}.name`,
          l.name,
          `duplicates spec.loopbacks[${first}].name`,
        ),
      );
    const bad = checkNetworkPrefix(l.subnet);
    if (bad) {
      out.push(problem({ kind: VRF, name: metadata.name }, `${at}.subnet`, l.subnet, bad));
      return;
    }
    const clash = list.findIndex(
      (o, j) => j < i && checkNetworkPrefix(o.subnet) === undefined && prefixesOverlap(o.subnet, l.subnet),
    );
    if (clash >= 0)
      out.push(
        problem(
          { kind: VRF, name: metadata.name },
          `${at}.subnet`,
          l.subnet,
          `overlaps spec.loopbacks[${clash}].subnet ${list[clash]!.subnet}`,
        ),
      );
  });
  return out;
};

/**
 * Room for the loopback lines: each node's address of each loopback becomes a `permit` line of the
 * export prefix-list of its family, numbered after the object's own export lines of that family
 * (they must come after them, so that the object's deny lines also apply to the loopback addresses;
 * agent `frr/loopback-lines.ts`). A node gets at most one address per loopback, so the largest
 * export sequence number of a family plus the loopbacks of that family must stay within
 * MAX_PREFIX_SEQ; the largest export item is named. Refused here so that every accepted object can
 * be rendered by every agent (invariant 10).
 */
export const vrfLoopbackSeqRoom: Rule = ({ metadata, spec }) => {
  const loopbacks = { 4: 0, 6: 0 };
  for (const l of spec.loopbacks ?? []) {
    const family = checkNetworkPrefix(l.subnet) === undefined ? familyOf(l.subnet) : undefined;
    if (family !== undefined) loopbacks[family]++;
  }
  const out: Problem[] = [];
  for (const family of [4, 6] as const) {
    const room = MAX_PREFIX_SEQ - loopbacks[family];
    if (loopbacks[family] === 0) continue;
    let last = -1;
    (spec.export ?? []).forEach((item, i) => {
      if (familyOf(item.cidr) !== family || !Number.isInteger(item.seq)) return;
      if (last < 0 || item.seq > spec.export![last]!.seq) last = i;
    });
    const item = last < 0 ? undefined : spec.export![last]!;
    if (item !== undefined && item.seq > room)
      out.push(
        problem(
          { kind: VRF, name: metadata.name },
          `spec.export[${last}].seq`,
          item.seq,
          `leaves no prefix-list sequence number for the ${loopbacks[family]} IPv${family} loopback line(s) ` +
            `numbered after the export lines (spec.loopbacks): must be at most ${room}`,
        ),
      );
  }
  return out;
};

export const VRF_EXTRA_RULES: Rule[] = [vrfSelector, vrfStaticRoutes, vrfLoopbacks, vrfLoopbackSeqRoom];
