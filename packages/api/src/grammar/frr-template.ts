/**
 * The syntax of the operator's FRR base template (an AgentConfiguration's `spec.frrTemplate`, or the
 * agent's bootstrap `--frr-template`): a complete frr.conf (hostname, underlay interfaces, the fabric
 * BGP sessions, `address-family l2vpn evpn` with `advertise-all-vni`, …) with placeholders where the
 * generated sections go. Pure, so the configurator refuses a bad template at the input (invariant 10)
 * with the same rules the agent fills it by (agent/src/frr/render/template.ts).
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
 * So is a control character other than tab: the text goes into a file vtysh reads line by line.
 */
import { NodenetError } from '../errors.js';

export const TEMPLATE_SECTION_NAMES = [
  'vrfs',
  'prefix_lists',
  'route_maps',
  'bgp_default',
  'bgp_default_ipv4',
  'bgp_default_ipv6',
  'bgp_vrfs',
] as const;
export type TemplateSectionName = (typeof TEMPLATE_SECTION_NAMES)[number];

export const TEMPLATE_VALUE_NAMES = ['asn', 'router_id'] as const;
export type TemplateValueName = (typeof TEMPLATE_VALUE_NAMES)[number];

export type TemplatePart =
  | { kind: 'text'; line: string }
  /** Text at even positions, a TemplateValueName at odd ones. */
  | { kind: 'values'; pieces: string[] }
  | { kind: 'section'; name: TemplateSectionName; indent: string };

export interface ParsedFrrTemplate {
  readonly parts: readonly TemplatePart[];
  /** False when the template turns off `bgp default ipv4-unicast`: IPv4 sessions then need `activate`. */
  readonly ipv4ActivatedByDefault: boolean;
  /** Lines of the template itself (what it adds to a node's FRR config besides the sections). */
  readonly lines: number;
}

/** A template that breaks the syntax above; `line` is 1-based when the problem is on one line. */
export class FrrTemplateSyntaxError extends NodenetError {
  constructor(
    readonly reason: string,
    readonly line?: number,
  ) {
    super('InvalidFrrTemplate', line !== undefined ? `line ${line}: ${reason}` : reason);
  }
}

const PLACEHOLDER = /\{\{\s*([a-z0-9_]+)\s*\}\}/g;
const SECTION_LINE = /^([ \t]*)\{\{\s*([a-z0-9_]+)\s*\}\}[ \t]*$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

const isSection = (n: string): n is TemplateSectionName =>
  (TEMPLATE_SECTION_NAMES as readonly string[]).includes(n);
const isValue = (n: string): n is TemplateValueName =>
  (TEMPLATE_VALUE_NAMES as readonly string[]).includes(n);

/** Parses a template; throws FrrTemplateSyntaxError naming the line and the problem. */
export function parseFrrTemplate(text: string): ParsedFrrTemplate {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const parts: TemplatePart[] = [];
  const seen = new Set<TemplateSectionName>();
  lines.forEach((line, i) => {
    const lineNo = i + 1;
    if (CONTROL.test(line)) throw new FrrTemplateSyntaxError('control character in the line', lineNo);
    const whole = SECTION_LINE.exec(line);
    if (whole && isSection(whole[2]!)) {
      const name = whole[2];
      if (seen.has(name))
        throw new FrrTemplateSyntaxError(`section placeholder {{ ${name} }} appears twice`, lineNo);
      seen.add(name);
      parts.push({ kind: 'section', name, indent: whole[1]! });
      return;
    }
    parts.push(lineParts(line, lineNo));
  });
  const vrfsAt = parts.findIndex((p) => p.kind === 'section' && p.name === 'vrfs');
  const bgpAt = parts.findIndex((p) => p.kind !== 'section' && /^router bgp\b/.test(partText(p)));
  if (vrfsAt >= 0 && bgpAt >= 0 && bgpAt < vrfsAt) {
    throw new FrrTemplateSyntaxError(
      '{{ vrfs }} must come before the first `router bgp` block',
      lines.indexOf(partText(parts[bgpAt]!)) + 1,
    );
  }
  const missing = TEMPLATE_SECTION_NAMES.filter((n) => !seen.has(n));
  if (missing.length) {
    throw new FrrTemplateSyntaxError(
      `missing section placeholder(s): ${missing.map((n) => `{{ ${n} }}`).join(', ')}`,
    );
  }
  const ipv4ActivatedByDefault = !lines.some((l) => /^\s*no bgp default ipv4-unicast\s*$/.test(l));
  return { parts, ipv4ActivatedByDefault, lines: lines.length - seen.size };
}

/** One line that is not a section placeholder: literal text with value placeholders in it. */
function lineParts(line: string, lineNo: number): TemplatePart {
  const pieces: string[] = [];
  let last = 0;
  for (const m of line.matchAll(PLACEHOLDER)) {
    const name = m[1]!;
    if (isSection(name)) {
      throw new FrrTemplateSyntaxError(
        `section placeholder {{ ${name} }} must stand alone on its line`,
        lineNo,
      );
    }
    if (!isValue(name)) {
      throw new FrrTemplateSyntaxError(
        `unknown placeholder {{ ${name} }} (values: ${TEMPLATE_VALUE_NAMES.join(', ')}; sections: ${TEMPLATE_SECTION_NAMES.join(', ')})`,
        lineNo,
      );
    }
    pieces.push(line.slice(last, m.index), name);
    last = m.index + m[0].length;
  }
  pieces.push(line.slice(last));
  const literal = pieces.filter((_, k) => k % 2 === 0).join('');
  if (literal.includes('{{') || literal.includes('}}')) {
    throw new FrrTemplateSyntaxError(`malformed placeholder in "${line.trim()}"`, lineNo);
  }
  return pieces.length === 1 ? { kind: 'text', line } : { kind: 'values', pieces };
}

const partText = (p: TemplatePart): string =>
  p.kind === 'text' ? p.line : p.kind === 'values' ? p.pieces.join('') : '';
