/**
 * Strict grammars for every string that later reaches an FRR config file or a command line
 * (invariant 6). They are deliberately narrower than what FRR or iproute2 would accept: no
 * whitespace, newline, `!`, `#` or any other character that could start new FRR syntax can pass.
 * The same patterns go into the CRD schemas, so the API server refuses such values too.
 */

/** VRF name: becomes `vr.<name>` and FRR `vrf vr.<name>`. */
export const VRF_NAME_PATTERN = '^[A-Za-z0-9_-]{1,12}$';
/** MAC address, colon-separated hex pairs. */
export const MAC_PATTERN = '^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$';
/** BGP community: `AA:NN`, a large community `A:B:C`, or a well-known name. */
export const COMMUNITY_PATTERN =
  '^([0-9]{1,5}:[0-9]{1,5}|[0-9]{1,10}:[0-9]{1,10}:[0-9]{1,10}|no-export|no-advertise|local-AS|no-peer|blackhole|graceful-shutdown)$';
/** Route target: `ASN:NN` or `IPv4:NN`. */
export const ROUTE_TARGET_PATTERN = '^([0-9]{1,10}:[0-9]{1,10}|([0-9]{1,3}\\.){3}[0-9]{1,3}:[0-9]{1,5})$';
/** IPv4 or IPv6 prefix in CIDR notation (characters only; the address itself is checked semantically). */
export const CIDR_PATTERN = '^(([0-9]{1,3}\\.){3}[0-9]{1,3}/[0-9]{1,2}|[0-9A-Fa-f:.]{2,45}/[0-9]{1,3})$';

/** A BGP peer address: IPv4 or IPv6, no prefix length (characters only; the address is checked semantically). */
export const PEER_ADDRESS_PATTERN = '^([0-9]{1,3}\\.){3}[0-9]{1,3}$|^[0-9A-Fa-f:]{2,39}$';

/**
 * A duration, Go style: `500ms`, `30s`, `1.5s`, `10m`, `1h30m`, or `0`. One definition for the
 * RolloutPolicy fields (the CRD pattern) and both binaries' flags (`parseDuration` of @nodenet/kube).
 */
/** A Secret's name (DNS-1123 subdomain) and a key of its data (Kubernetes' own rules). */
export const SECRET_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
export const SECRET_KEY_PATTERN = '^[-._a-zA-Z0-9]+$';
/** The salted hash of a BGP password a revision carries (config/bgp-password.ts). */
export const PASSWORD_HASH_PATTERN = '^hmac-sha256:[0-9a-f]{64}$';
/**
 * A TCP-MD5 password as FRR's `neighbor … password LINE` takes it and frr-reload.py reads it back:
 * 1–80 printable ASCII characters (the kernel's TCP_MD5SIG_MAXKEYLEN), no space, `!` or `#` (they
 * start comments in FRR's config syntax).
 */
export const BGP_PASSWORD_PATTERN = '^[\\x22\\x24-\\x7e]{1,80}$';
/**
 * A word the agent writes into `status.observed`: printable ASCII without `"`, `&`, `<`, `>` and
 * `\`, which JSON (and kube-apiserver's HTML-safe encoder) would store as more than one byte each.
 */
export const OBSERVED_WORD_PATTERN = "^[ !#-%'-;=?-\\[\\]-~]*$";
/** Condition types and reasons as the agent writes them (Kubernetes' metav1.Condition reason grammar). */
export const CONDITION_TYPE_PATTERN = '^[A-Za-z][A-Za-z0-9]*$';
export const CONDITION_REASON_PATTERN = '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$';
/** Patterns whose every character JSON stores as one byte (the size budget counts on it). */
export const ONE_BYTE_PATTERNS: ReadonlySet<string> = new Set([
  OBSERVED_WORD_PATTERN,
  CONDITION_TYPE_PATTERN,
  CONDITION_REASON_PATTERN,
]);
const OBSERVED_WORD = new RegExp(OBSERVED_WORD_PATTERN);
export const isObservedWord = (s: unknown, maxLength = 64): s is string =>
  typeof s === 'string' && s.length <= maxLength && OBSERVED_WORD.test(s);

export const DURATION_PATTERN = '^(0|([0-9]+(\\.[0-9]+)?(ms|s|m|h))+)$';

const vrfName = new RegExp(VRF_NAME_PATTERN);
const mac = new RegExp(MAC_PATTERN);
const community = new RegExp(COMMUNITY_PATTERN);
const routeTarget = new RegExp(ROUTE_TARGET_PATTERN);
const cidrChars = new RegExp(CIDR_PATTERN);

export const isVrfName = (s: string): boolean => vrfName.test(s);
export const isMac = (s: string): boolean => mac.test(s);
export const hasCidrChars = (s: string): boolean => cidrChars.test(s);

/** A community whose numeric parts are in range (16-bit halves, or 32-bit parts of a large community). */
export function isCommunity(s: string): boolean {
  if (!community.test(s)) return false;
  const parts = s.split(':');
  if (parts.length === 2) return parts.every((p) => Number(p) <= 0xffff);
  if (parts.length === 3) return parts.every((p) => Number(p) <= 0xffffffff);
  return true;
}

/** A route target whose parts fit one of the three extended-community encodings. */
export function isRouteTarget(s: string): boolean {
  if (!routeTarget.test(s)) return false;
  const idx = s.lastIndexOf(':');
  const admin = s.slice(0, idx);
  const num = Number(s.slice(idx + 1));
  if (admin.includes('.')) {
    return admin.split('.').every((o) => Number(o) <= 255 && String(Number(o)) === o) && num <= 0xffff;
  }
  const asn = Number(admin);
  if (asn <= 0xffff) return num <= 0xffffffff;
  return asn <= 0xffffffff && num <= 0xffff;
}

/** The name part of a label key, and a non-empty label value: ≤ 63, alphanumeric at both ends. */
export const LABEL_NAME_PATTERN = '^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$';
/** A label value: empty or a label name. */
export const LABEL_VALUE_PATTERN = '^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$';
/**
 * A label key: `[prefix/]name`, the prefix a DNS-1123 subdomain (lower-case labels of ≤ 63, joined
 * by dots). Its total length (≤ 253) is checked apart: a regular expression can not say it.
 */
export const LABEL_KEY_PATTERN =
  '^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?([.][a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$';

const labelKey = new RegExp(LABEL_KEY_PATTERN);
const labelValue = new RegExp(LABEL_VALUE_PATTERN);

/**
 * Why `key` is not a Kubernetes label key (worded as apimachinery words it), or undefined when it is.
 */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  if (slash >= 0 && slash > 253) return 'prefix part must be no more than 253 characters';
  if (labelKey.test(key)) return undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (slash >= 0 && !labelKey.test(`a/${name}`)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  if (slash >= 0) {
    return "prefix part must be a lowercase RFC 1123 subdomain: lower-case alphanumerics, '-' and '.', starting and ending alphanumeric";
  }
  return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
}

/** Why `value` is not a Kubernetes label value, or undefined when it is. */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (labelValue.test(value)) return undefined;
  return "must be empty or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
}
