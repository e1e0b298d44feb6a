import { performance } from 'node:perf_hooks';
import { buildModel, parseTemplate, renderFrrConfig } from '@nodenet/agent';
import { renderSections } from '../packages/agent/src/frr/sections.js';
import { fillTemplate } from '../packages/agent/src/frr/template.js';
import { settings, spec, template } from './frr-fixture.js';
const tpl = parseTemplate(template);
for (const v of [50, 200, 50, 200]) {
  const s = spec(v, 4, 25);
  const t = (f: () => unknown) => { f(); const t0 = performance.now(); for (let i=0;i<10;i++) f(); return ((performance.now()-t0)/10).toFixed(1); };
  const m = buildModel(s, settings); const sec = renderSections(m, true);
  console.log(v, 'model', t(() => buildModel(s, settings)), 'sections', t(() => renderSections(m, true)), 'fill', t(() => fillTemplate(tpl, sec, {asn:'1', router_id:'1.1.1.1'})), 'all', t(()=>renderFrrConfig(s, settings, tpl)));
}
