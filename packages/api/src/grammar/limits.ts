/**
 * Per-field limits of the nodenet resources: `maxItems` for every list and `maxLength` for every
 * string in the CRDs, and the same figures in the configurator's own validation (inputs can reach it
 * without admission). docs/resources.md ("Limits") explains them.
 *
 * The budget they come from is the API server's object limit, about 1.5 MiB (etcd's request limit).
 * - Inputs (what people write): each list is bounded so that one object at every limit stays well
 *   inside that budget: 2 × 1,000 prefix-list entries of ≤ 130 bytes plus 256 aggregates is about
 *   280 KB. The whole-revision size budget (the sum over all inputs) is checked where revisions are built.
 * - Objects the configurator writes (revisions, NodeConfigs): lists are bounded by how many entries of
 *   the smallest possible size fit the object limit, so the CRD limit never binds before the
 *   object size does; the build step refuses, with a figure, the input that crosses the budget.
 * - Status text written by our own components (messages) uses Kubernetes' own limit for a condition
 *   message (32 KiB); the writers bound what they put there.
 */

/** An object's name (metadata.name): a DNS-1123 subdomain. */
export const MAX_NAME_LENGTH = 253;
/** Prefix-list entries in one of `import` / `export`. */
export const MAX_PREFIX_LIST_ITEMS = 1000;
/** Largest prefix-list sequence number FRR takes (and the schema allows). */
export const MAX_PREFIX_SEQ = 4294967295;
/** Aggregates of one VRFRouteConfiguration. */
export const MAX_AGGREGATES = 256;
/** Peer addresses of one BGPPeering in neighbor mode. */
export const MAX_BGP_NEIGHBORS = 64;
/**
 * Routes one BGP session of a BGPPeering may send per address family (`maxPrefixes`): the default
 * when the peering names none, and the most it may name. A workload announces its service and pod
 * prefixes, not an Internet table; past the limit the node ends the session (Cease / Maximum
 * Number of Prefixes Reached) instead of taking the routes.
 */
export const DEFAULT_BGP_MAX_PREFIXES = 1000;
export const MAX_BGP_MAX_PREFIXES = 100_000;
/** Subjects in one network's or VRF's `peering.admit` list. */
export const MAX_PEERING_ADMITS = 64;
/** Communities one BGPPeering adds on import. */
export const MAX_BGP_COMMUNITIES = 16;
/**
 * Longest BGPPeering name: it names FRR objects (peer-group `pp_<name>`, prefix-lists, route-maps,
 * BFD profile `pp_<name>`), and FRR caps a BFD profile name at 63 characters.
 */
export const MAX_BGP_PEERING_NAME_LENGTH = 48;
/** Anycast gateways of one Layer-2 network. */
export const MAX_ANYCAST_GATEWAYS = 64;
/** Requirements of one label selector, and values of one requirement. */
export const MAX_MATCH_EXPRESSIONS = 32;
export const MAX_MATCH_VALUES = 64;
/** Labels of one `matchLabels`. */
export const MAX_MATCH_LABELS = 64;
/** Longest prefix text: a full IPv6 address (39) plus `/128`; 49 leaves room for any spelling ipaddr takes. */
export const MAX_CIDR_LENGTH = 49;

/**
 * Kubernetes label syntax (apimachinery `IsQualifiedName` / `IsValidLabelValue`): a key is an
 * optional DNS-subdomain prefix (≤ 253) and `/`, then a name of ≤ 63 alphanumerics, `-`, `_`, `.`
 * that starts and ends alphanumeric; a value is empty or such a name.
 */
export const MAX_LABEL_NAME_LENGTH = 63;
export const MAX_LABEL_PREFIX_LENGTH = 253;
export const MAX_LABEL_KEY_LENGTH = MAX_LABEL_PREFIX_LENGTH + 1 + MAX_LABEL_NAME_LENGTH;
export const MAX_LABEL_VALUE_LENGTH = 63;

/** Entries of one kind in a revision or NodeConfig: 1.5 MiB / ~80 bytes of the smallest entry. */
export const MAX_CONFIG_ENTRIES = 20_000;
/** `changedInputs` of a revision: every input of the three kinds. */
export const MAX_CHANGED_INPUTS = 3 * MAX_CONFIG_ENTRIES;
/** `Kind/name@generation` of one changed input. */
export const MAX_INPUT_REF_LENGTH = 64 + MAX_NAME_LENGTH;

/** Condition fields, as metav1.Condition bounds them. */
export const MAX_CONDITIONS = 32;
export const MAX_CONDITION_TYPE_LENGTH = 316;
export const MAX_CONDITION_REASON_LENGTH = 1024;
export const MAX_MESSAGE_LENGTH = 32_768;
/** An RFC 3339 timestamp (with fractions of a second and an offset). */
export const MAX_TIMESTAMP_LENGTH = 64;
/** Short free-form words in status: states, versions, summaries. */
export const MAX_WORD_LENGTH = 256;
/**
 * What the agent writes into a NodeConfig's status, and so what the CRD admits (issue #37): the
 * status' largest size is counted in the size budget (spec + status within the object limit), so
 * one agent's status can not make the configurator's writes of its NodeConfig fail.
 * - BGP sessions / VNIs listed in `status.observed` (the summaries count them all);
 * - the words in them (VRF devices, peers, states, interfaces): printable ASCII that JSON stores as
 *   it is (OBSERVED_WORD_PATTERN);
 * - messages: the agent cuts them to 2048 UTF-8 bytes (at most as many characters);
 * - conditions: the agent writes four types (room for two more).
 */
export const MAX_OBSERVED_ITEMS = 256;
export const MAX_OBSERVED_WORD_LENGTH = 64;
export const MAX_AGENT_MESSAGE_LENGTH = 2048;
export const MAX_NODE_CONFIG_CONDITIONS = 6;
/** Durations and counts written as text in a RolloutPolicy. */
export const MAX_KNOB_LENGTH = 64;

/**
 * Shortest anycast gateway prefix per family. A gateway's subnet becomes a connected route on every
 * node it reaches: `/0` or `/1` there is a default route (or half of one) that takes traffic from
 * the underlay. An IPv4 subnet larger than a /8 and an IPv6 one larger than a /48 (a whole site's
 * allocation) are not Layer-2 networks anyone means.
 */
export const MIN_GATEWAY_PREFIX_LENGTH = { 4: 8, 6: 48 } as const;

/**
 * Characters of an FRR base template (AgentConfiguration `spec.frrTemplate`): every NodeConfig the
 * object selects carries it, so it is kept well inside the object budget; the shipped one is ~2 KB.
 */
export const MAX_FRR_TEMPLATE_LENGTH = 65_536;
/** Items of each list of an AgentConfiguration's health checks. */
export const MAX_HEALTH_ITEMS = 64;

/** Static routes of one VRFRouteConfiguration. */
export const MAX_STATIC_ROUTES = 256;
/** Loopbacks of one VRFRouteConfiguration: each costs one address per selected node. */
export const MAX_LOOPBACKS = 8;
