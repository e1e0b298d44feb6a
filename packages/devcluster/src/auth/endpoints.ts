/**
 * The API endpoints of authentication and authorization that are answered, not stored:
 * TokenRequest (`POST …/serviceaccounts/<name>/token`, what `kubectl create token` calls) and the
 * access reviews `kubectl auth can-i` posts (SelfSubjectAccessReview, SelfSubjectRulesReview) plus
 * SubjectAccessReview.
 */
import type { Cluster } from '../cluster/cluster.js';
import { ApiError, badRequest, invalid, notFound } from '../objects/errors.js';
import { isObject, type KObject } from '../objects/types.js';
import { nowTimestamp } from '../cluster/writes.js';
import type { Access } from './access.js';
import { reviewAttributes, selfSubjectAccessReview } from './access-review.js';
import type { UserInfo } from './admission-policy.js';
import type { BoundPod } from './authenticate.js';
import { plainText } from '../objects/text.js';

const MIN_EXPIRATION_SECONDS = 600;

/** TokenRequest for `namespace/name`; the response body (201). */
export function tokenRequest(
  cluster: Cluster,
  access: Access,
  serviceAccount: { namespace: string; name: string },
  body: unknown,
): KObject {
  const { namespace, name } = serviceAccount;
  const sat = cluster.typeFor('', 'v1', 'serviceaccounts');
  if (!sat) throw new Error('ServiceAccount type missing');
  cluster.get(sat, namespace, name); // 404 like the real server for an unknown ServiceAccount
  if (!isObject(body)) throw badRequest('the body of the request was not a TokenRequest object');
  const spec = isObject(body.spec) ? body.spec : {};
  const expirationSeconds = spec.expirationSeconds === undefined ? 3600 : Number(spec.expirationSeconds);
  if (!Number.isInteger(expirationSeconds) || expirationSeconds < MIN_EXPIRATION_SECONDS)
    throw invalid('TokenRequest', 'authentication.k8s.io', name, [
      {
        type: 'FieldValueInvalid',
        field: 'spec.expirationSeconds',
        message: `Invalid value: ${JSON.stringify(spec.expirationSeconds)}: may not specify a duration less than 10 minutes`,
      },
    ]);
  let pod: BoundPod | undefined;
  const ref = spec.boundObjectRef;
  if (isObject(ref)) {
    const kind = plainText(ref.kind ?? '');
    const refName = plainText(ref.name ?? '');
    if (kind === 'Pod') {
      const podType = cluster.typeFor('', 'v1', 'pods')!;
      const p = cluster.get(podType, namespace, refName).obj;
      if (typeof ref.uid === 'string' && ref.uid && ref.uid !== p.metadata.uid)
        throw new ApiError(
          409,
          'Conflict',
          `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
        );
      const podSpec = isObject(p.spec) ? p.spec : {};
      if ((podSpec.serviceAccountName ?? 'default') !== name)
        throw badRequest(
          `cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`,
        );
      pod = { name: refName, uid: p.metadata.uid ?? '' };
      if (typeof podSpec.nodeName === 'string' && podSpec.nodeName) pod.nodeName = podSpec.nodeName;
    } else if (kind === 'Secret') {
      cluster.get(cluster.typeFor('', 'v1', 'secrets')!, namespace, refName);
    } else throw badRequest(`cannot bind token to object of type ${kind}`);
  }
  const issued = access.tokens.issueServiceAccount(namespace, name, {
    expirationSeconds,
    ...(pod ? { pod } : {}),
  });
  const expires = new Date(Date.now() + issued.expirationSeconds * 1000)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: nowTimestamp() },
    spec: { ...spec, expirationSeconds: issued.expirationSeconds },
    status: { token: issued.token, expirationTimestamp: expires },
  };
}

/** The answer to a posted review (`plural` of authorization.k8s.io), asked by `user`. */
export function review(access: Access, plural: string, user: UserInfo, body: unknown): KObject {
  if (plural === 'selfsubjectreviews')
    return {
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: nowTimestamp() },
      status: {
        userInfo: {
          username: user.username,
          ...(user.uid ? { uid: user.uid } : {}),
          groups: user.groups,
          extra: user.extra ?? {},
        },
      },
    };
  if (!isObject(body) || !isObject(body.spec)) throw badRequest('the review has no spec');
  const spec = body.spec;
  switch (plural) {
    case 'selfsubjectaccessreviews':
      return selfSubjectAccessReview(spec, user, (a) => access.decide(a)) as KObject;
    case 'subjectaccessreviews': {
      const subject: UserInfo = {
        username: plainText(spec.user ?? ''),
        groups: Array.isArray(spec.groups) ? spec.groups.map(String) : [],
        extra: isObject(spec.extra) ? (spec.extra as Record<string, string[]>) : {},
      };
      const d = access.decide(reviewAttributes(spec, subject));
      return {
        kind: 'SubjectAccessReview',
        apiVersion: 'authorization.k8s.io/v1',
        metadata: {},
        spec,
        status: d.allowed ? { allowed: true, reason: d.reason } : { allowed: false },
      };
    }
    case 'selfsubjectrulesreviews': {
      const rules = access.rulesFor(user, plainText(spec.namespace ?? ''));
      return {
        kind: 'SelfSubjectRulesReview',
        apiVersion: 'authorization.k8s.io/v1',
        metadata: {},
        spec,
        status: {
          resourceRules: rules.resource.map((r) => ({
            verbs: r.verbs,
            apiGroups: r.apiGroups ?? [],
            resources: r.resources ?? [],
            ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
          })),
          nonResourceRules: rules.nonResource.map((r) => ({
            verbs: r.verbs,
            nonResourceURLs: r.nonResourceURLs,
          })),
          incomplete: false,
        },
      };
    }
    default:
      throw notFound(plural, 'authorization.k8s.io', '');
  }
}
