/**
 * The operator's base template: a complete frr.conf (hostname, underlay interfaces, the fabric BGP
 * sessions, `address-family l2vpn evpn` with `advertise-all-vni`, …) with placeholders where the
 * generated sections go.
 *
 * Syntax: `{{ name }}` (spaces inside the braces optional, names lower-case).
 * - Value placeholders may stand anywhere on a line, any number of times:
 *   `{{ asn }}` (local AS number), `{{ router_id }}` (BGP router id).
 * - Section placeholders must stand alone on their line and appear exactly once each; every line of
 *   the section is inserted with the placeholder's indentation, and an empty section leaves no line:
 *   `{{ vrfs }}` (top level, before any `router bgp`: vtysh would read a later `vrf X` inside a
 *   `router bgp` block as an abbreviation of `vrf-policy`), `{{ prefix_lists }}`, `{{ route_maps }}`
 *   (top level; best before `router bgp` too, so that no line refers to a map not yet defined),
 *   `{{ bgp_default }}` (inside `router bgp {{ asn }}`),
 *   `{{ bgp_default_ipv4 }}` / `{{ bgp_default_ipv6 }}` (inside its `address-family ipv4|ipv6 unicast`),
 *   `{{ bgp_vrfs }}` (top level, after the default `router bgp` block).
 * Anything else between `{{` and `}}`, or a stray `{{` / `}}`, is an error: a typo must not reach FRR.
 * The template is checked once when it is loaded (`parseTemplate`), so a bad one stops the agent at
 * start-up rather than at the first apply.
 */
import { FrrTemplateError } from './errors.js';
import { LineBuilder } from './line-builder.js';
import { SECTION_NAMES, type SectionName, type Sections } from './sections.js';

export const VALUE_NAMES = ['asn', 'router_id'] as const;
export type ValueName = (typeof VALUE_NAMES)[number];

type Part =
  | { kind: 'text'; line: string }
  /** Text at even positions, a ValueName at odd ones. */
  | { kind: 'values'; pieces: string[] }
  | { kind: 'section'; name: SectionName; indent: string };

export interface FrrTemplate {
  readonly parts: readonly Part[];
  /** False when the template turns off `bgp default ipv4-unicast`: IPv4 sessions then need `activate`. */
  readonly ipv4ActivatedByDefault: boolean;
}

const PLACEHOLDER = /\{\{\s*([a-z0-9_]+)\s*\}\}/g;
const SECTION_LINE = /^([ \t]*)\{\{\s*([a-z0-9_]+)\s*\}\}[ \t]*$/;

const isSection = (n: string): n is SectionName => (SECTION_NAMES as readonly string[]).includes(n);
const isValue = (n: string): n is ValueName => (VALUE_NAMES as readonly string[]).includes(n);

export function parseTemplate(text: string): FrrTemplate {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const parts: Part[] = [];
  const seen = new Set<SectionName>();
  lines.forEach((line, i) => {
    const lineNo = i + 1;
    const whole = SECTION_LINE.exec(line);
    if (whole && isSection(whole[2]!)) {
      const name = whole[2];
      if (seen.has(name))
        throw new FrrTemplateError(`section placeholder {{ ${name} }} appears twice`, lineNo);
      seen.add(name);
      parts.push({ kind: 'section', name, indent: whole[1]! });
      return;
    }
    const pieces: string[] = [];
    let last = 0;
    for (const m of line.matchAll(PLACEHOLDER)) {
      const name = m[1]!;
      if (isSection(name)) {
        throw new FrrTemplateError(`section placeholder {{ ${name} }} must stand alone on its line`, lineNo);
      }
      if (!isValue(name)) {
        throw new FrrTemplateError(
          `unknown placeholder {{ ${name} }} (values: ${VALUE_NAMES.join(', ')}; sections: ${SECTION_NAMES.join(', ')})`,
          lineNo,
        );
      }
      pieces.push(line.slice(last, m.index), name);
      last = m.index + m[0].length;
    }
    pieces.push(line.slice(last));
    const literal = pieces.filter((_, k) => k % 2 === 0).join('');
    if (literal.includes('{{') || literal.includes('}}')) {
      throw new FrrTemplateError(`malformed placeholder in "${line.trim()}"`, lineNo);
    }
    parts.push(pieces.length === 1 ? { kind: 'text', line } : { kind: 'values', pieces });
  });
  const vrfsAt = parts.findIndex((p) => p.kind === 'section' && p.name === 'vrfs');
  const bgpAt = parts.findIndex((p) => p.kind !== 'section' && /^router bgp\b/.test(partText(p)));
  if (vrfsAt >= 0 && bgpAt >= 0 && bgpAt < vrfsAt) {
    throw new FrrTemplateError(
      '{{ vrfs }} must come before the first `router bgp` block',
      lines.indexOf(partText(parts[bgpAt]!)) + 1,
    );
  }
  const missing = SECTION_NAMES.filter((n) => !seen.has(n));
  if (missing.length) {
    throw new FrrTemplateError(
      `missing section placeholder(s): ${missing.map((n) => `{{ ${n} }}`).join(', ')}`,
    );
  }
  const ipv4ActivatedByDefault = !lines.some((l) => /^\s*no bgp default ipv4-unicast\s*$/.test(l));
  return { parts, ipv4ActivatedByDefault };
}

const partText = (p: Part): string =>
  p.kind === 'text' ? p.line : p.kind === 'values' ? p.pieces.join('') : '';

/** The whole file: the template's lines with the values filled in and the sections written in place. */
export function fillTemplate(t: FrrTemplate, sections: Sections, values: Record<ValueName, string>): string {
  const out = new LineBuilder();
  for (const p of t.parts) {
    if (p.kind === 'text') out.line(p.line);
    else if (p.kind === 'values') {
      out.line(p.pieces.map((x, k) => (k % 2 === 1 ? values[x as ValueName] : x)).join(''));
    } else {
      out.indent = p.indent;
      sections[p.name](out);
      out.indent = '';
    }
  }
  return out.text();
}
