// render/: a node's spec and the base template → the FRR configuration text (pure).
export { buildModel, type FrrModel, type FrrNodeSettings } from './model.js';
export { type PasswordLookup } from './peering-model.js';
export { renderFrrConfig } from './render.js';
export { DENY_ALL_SEQ, SECTION_NAMES, prefixListName, routeMapName, type SectionName } from './sections.js';
export { SpecTemplates, VALUE_NAMES, parseTemplate, type FrrTemplate } from './template.js';
export { FrrRenderError } from '../errors.js';
