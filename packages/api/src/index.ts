// The public surface of @nodenet/api: what the binaries, the plugin, devcluster and the testkit use.
// Internals their own tests need (prefixesOverlap, selectorImplies, inForceKeys, the CEL rules) are
// imported by those tests from ../src directly.

// names/: names nodenet gives in Kubernetes and on the host
export * from './names/kubernetes.js';
export * from './names/devices.js';
export * from './names/terminal-text.js';

// grammar/: what a field accepts
export * from './grammar/patterns.js';
export * from './grammar/limits.js';
export * from './grammar/frr-template.js';
export {
  checkGatewayAddress,
  checkHostAddress,
  checkNetworkPrefix,
  normalizeAddress,
  normalizePrefix,
  parsePrefix,
  type Family,
  type Prefix,
  type PrefixResult,
} from './grammar/prefix.js';

// resources/: the types and schemas of every kind, and the CRDs made from them
export * from './resources/schema.js';
export * from './resources/vrf-extras.js';
export * from './resources/bgp-peering.js';
export * from './resources/peering-policy.js';
export * from './resources/agent-configuration.js';
export * from './resources/rollout-policy.js';
export * from './resources/observed.js';
export * from './resources/objects.js';
export * from './resources/crd.js';

// validation/: the configurator's own checks of the inputs
export {
  ValidationError,
  nodeAddressesOf,
  siteUnderlayOf,
  validateInputs,
  type UnderlayContext,
  type Problem,
  type ValidationContext,
} from './validation/validate.js';

// config/: inputs → a revision's config → a node's
export * from './config/canonical.js';
export * from './config/merge.js';
export * from './config/bgp-password.js';
export {
  labelOf,
  matchesSelector,
  noNodeMatches,
  SELECTOR_OPERATORS,
  selectorOf,
  selectorTerms,
  selectorText,
} from './config/selector.js';
export * from './config/node-config.js';
export * from './config/loopbacks.js';

// held-back/: which inputs a build holds back
export * from './held-back/entry-change.js';
export * from './held-back/suspects.js';
export * from './held-back/inputs.js';
export * from './held-back/follow-ups.js';

// status/: conditions, where a node is and why, a peering's sessions
export * from './status/conditions.js';
export * from './status/node-placement.js';
export * from './status/bgp-peering-status.js';

export * from './errors.js';
