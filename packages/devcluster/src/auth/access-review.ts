/**
 * SelfSubjectAccessReview (authorization.k8s.io/v1), what `kubectl auth can-i` creates: the spec's
 * resource or non-resource attributes, asked for the requesting (possibly impersonated) user.
 */
import type { UserInfo } from './admission-policy.js';
import type { Decision, RequestAttributes } from './rbac.js';

export interface AccessReviewSpec {
  resourceAttributes?: {
    namespace?: string;
    verb?: string;
    group?: string;
    resource?: string;
    subresource?: string;
    name?: string;
  };
  nonResourceAttributes?: { path?: string; verb?: string };
}

export function reviewAttributes(spec: AccessReviewSpec, user: UserInfo): RequestAttributes {
  const r = spec.resourceAttributes;
  if (r) {
    return {
      resourceRequest: true,
      user,
      verb: r.verb ?? '',
      apiGroup: r.group ?? '',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      name: r.name ?? '',
      namespace: r.namespace ?? '',
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return { resourceRequest: false, user, verb: n.verb ?? '', path: n.path ?? '' };
}

/** The review object the API server returns, status filled in. */
export function selfSubjectAccessReview(
  spec: AccessReviewSpec,
  user: UserInfo,
  authorize: (a: RequestAttributes) => Decision,
): Record<string, unknown> {
  const d = authorize(reviewAttributes(spec, user));
  return {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: {},
    spec,
    status: d.allowed ? { allowed: true, reason: d.reason } : { allowed: false },
  };
}
