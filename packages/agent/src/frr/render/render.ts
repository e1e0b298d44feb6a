/**
 * Rendering frr.conf from a NodeConfig: check and group (model.ts), render the sections
 * (sections.ts), put them into the operator's template (template.ts). Pure and deterministic.
 */
import type { NodeConfigSpec } from '@nodenet/api';
import { buildModel, type FrrNodeSettings } from './model.js';
import { renderSections } from './sections.js';
import { fillTemplate, parseTemplate, type FrrTemplate } from './template.js';

/**
 * Render the full frr.conf. `template` is a parsed template or its text. Throws FrrRenderError for a
 * value outside the grammar and FrrTemplateError for a bad template.
 */
export function renderFrrConfig(
  spec: Pick<NodeConfigSpec, 'vrf' | 'routingTable' | 'bgpPeering'>,
  settings: FrrNodeSettings,
  template: FrrTemplate | string,
): string {
  const tpl = typeof template === 'string' ? parseTemplate(template) : template;
  const model = buildModel(spec, settings);
  return fillTemplate(tpl, renderSections(model, tpl.ipv4ActivatedByDefault), {
    asn: String(model.asn),
    router_id: model.routerId,
  });
}
