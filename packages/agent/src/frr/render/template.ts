/**
 * The operator's base template filled in: its syntax and parse are @nodenet/api's (grammar/
 * frr-template.ts), so the configurator refuses at the input what the agent could not fill. The
 * template comes from the node's NodeConfig (its AgentConfiguration) or, for a node no
 * AgentConfiguration selects, from the bootstrap `--frr-template`, checked once at start-up.
 */
import {
  FrrTemplateSyntaxError,
  type NodeConfigSpec,
  parseFrrTemplate,
  TEMPLATE_VALUE_NAMES,
  type ParsedFrrTemplate,
  type TemplateValueName,
} from '@nodenet/api';
import { FrrTemplateError } from '../errors.js';
import { LineBuilder } from './line-builder.js';
import type { Sections } from './sections.js';

export const VALUE_NAMES = TEMPLATE_VALUE_NAMES;
export type ValueName = TemplateValueName;

export type FrrTemplate = ParsedFrrTemplate;

/** The parsed template; throws FrrTemplateError naming the line. */
export function parseTemplate(text: string): FrrTemplate {
  try {
    return parseFrrTemplate(text);
  } catch (err) {
    if (err instanceof FrrTemplateSyntaxError) throw new FrrTemplateError(err.reason, err.line);
    throw err;
  }
}

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

/**
 * The template each NodeConfig renders with: the one it carries (its AgentConfiguration's), parsed
 * once per text, else the bootstrap template. Two parsed texts are kept: the applied one and the one
 * being applied.
 */
export class SpecTemplates {
  private readonly parsed = new Map<string, FrrTemplate>();
  /** The text of the last spec that carried one: the frame of an empty config without a bootstrap template. */
  private lastText: string | undefined;

  constructor(private readonly bootstrap: FrrTemplate | undefined) {}

  /** Throws FrrTemplateError when the spec carries none and there is no bootstrap template. */
  of(spec: Pick<NodeConfigSpec, 'agent'>): FrrTemplate {
    const text = spec.agent?.frrTemplate;
    if (text === undefined) {
      if (this.bootstrap) return this.bootstrap;
      throw new FrrTemplateError(
        'no template: no AgentConfiguration selects this node and the agent was started without --frr-template',
      );
    }
    this.lastText = text;
    let template = this.parsed.get(text);
    if (!template) {
      template = parseTemplate(text);
      if (this.parsed.size >= 2) this.parsed.delete(this.parsed.keys().next().value!);
      this.parsed.set(text, template);
    }
    return template;
  }

  /** An empty spec in the bootstrap template, else in the last template a spec carried. */
  emptySpec(): Pick<NodeConfigSpec, 'vrf' | 'routingTable' | 'agent'> {
    const frrTemplate = this.bootstrap ? undefined : this.lastText;
    return { vrf: [], routingTable: [], ...(frrTemplate ? { agent: { name: '', frrTemplate } } : {}) };
  }
}
