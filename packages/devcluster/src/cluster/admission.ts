/**
 * What a write presents to admission: the requester and the request. The core (writes, strategy)
 * builds these; `auth/` (authentication, RBAC, admission policies) sits above and consumes them.
 */

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** The request as admission sees it; `object`/`oldObject` are null where absent (CREATE, DELETE). */
export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  group: string;
  version: string;
  resource: string;
  subResource: string;
  name: string;
  namespace: string;
  userInfo: UserInfo;
  object: unknown;
  oldObject: unknown;
}
