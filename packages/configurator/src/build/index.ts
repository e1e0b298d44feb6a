/**
 * The revision build: inputs → validated, merged, budget-checked revision, with the inputs'
 * conditions (`Accepted`, `Applied`, `Selected`, `LoopbacksAllocated`) and the BGPPeering status
 * counts. Outside code imports the folder through this file only (a lint rule keeps it so).
 */
export * from './revisions.js';
export * from './budget.js';
export { maxJsonBytes, NODE_CONFIG_STATUS_MAX_BYTES } from './status-room.js';
export * from './build-schedule.js';
export { CreationOrder } from './creation-order.js';
export { appliedCondition, carried } from './outcome.js';
export { writePeeringStatuses, type PeeringStatusContext } from './peering-status.js';
export { revisionDisruption, writeRevisionDisruption } from './disruption-status.js';
export { RevisionBuilder } from './build-step.js';
export { loopbackNodes } from './loopback-step.js';
export { PasswordSecrets, type SecretSummary } from './password-secrets.js';
export { nodeFacts, type SiteUnderlay } from './node-facts.js';
