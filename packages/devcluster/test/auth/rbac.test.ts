/**
 * RBAC semantics (table tests on hand-written roles) and the answers the roles deploy/ ships give,
 * as `kubectl auth can-i --as=system:serviceaccount:nodenet-system:…` gives them on a real cluster.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  authorize,
  forbiddenMessage,
  forbiddenStatus,
  type Binding,
  type RbacObjects,
  type RequestAttributes,
  type Role,
} from '@nodenet/devcluster';

const sa = (name: string) => ({
  username: `system:serviceaccount:nodenet-system:${name}`,
  groups: ['system:serviceaccounts', 'system:serviceaccounts:nodenet-system', 'system:authenticated'],
});
const alice = { username: 'alice', groups: ['dev', 'system:authenticated'] };

/** `verb resource[/sub] [name] [-n ns]`, group from `resource.group`, like can-i's arguments. */
function ask(user: RequestAttributes['user'], q: string): RequestAttributes {
  const [verb, what, ...rest] = q.split(' ');
  if (what!.startsWith('/')) return { resourceRequest: false, user, verb: verb!, path: what! };
  const nsAt = rest.indexOf('-n');
  const namespace = nsAt >= 0 ? rest[nsAt + 1]! : '';
  const name = nsAt === 0 ? '' : (rest[0] ?? '');
  const [resourcePart, subresource = ''] = what!.split('/');
  const dot = resourcePart!.indexOf('.');
  const resource = dot < 0 ? resourcePart! : resourcePart!.slice(0, dot);
  const apiGroup = dot < 0 ? '' : resourcePart!.slice(dot + 1);
  return { resourceRequest: true, user, verb: verb!, apiGroup, resource, subresource, name, namespace };
}

describe('RBAC semantics', () => {
  const objects: RbacObjects = {
    clusterRoles: [
      {
        metadata: { name: 'pods-reader' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
      },
      {
        metadata: { name: 'status-writer' },
        rules: [{ apiGroups: ['apps'], resources: ['*/status'], verbs: ['*'] }],
      },
      {
        metadata: { name: 'metrics' },
        rules: [{ nonResourceURLs: ['/metrics', '/debug/*'], verbs: ['get'] }],
      },
    ],
    roles: [
      {
        metadata: { name: 'one-cm', namespace: 'a' },
        rules: [
          { apiGroups: [''], resources: ['configmaps'], resourceNames: ['cfg'], verbs: ['get', 'update'] },
        ],
      },
    ],
    clusterRoleBindings: [
      {
        metadata: { name: 'dev-status' },
        roleRef: { kind: 'ClusterRole', name: 'status-writer' },
        subjects: [{ kind: 'Group', name: 'dev' }],
      },
      {
        metadata: { name: 'alice-metrics' },
        roleRef: { kind: 'ClusterRole', name: 'metrics' },
        subjects: [{ kind: 'User', name: 'alice' }],
      },
    ],
    roleBindings: [
      {
        metadata: { name: 'alice-cm', namespace: 'a' },
        roleRef: { kind: 'Role', name: 'one-cm' },
        subjects: [{ kind: 'User', name: 'alice' }],
      },
      {
        metadata: { name: 'alice-pods', namespace: 'a' },
        roleRef: { kind: 'ClusterRole', name: 'pods-reader' },
        subjects: [{ kind: 'User', name: 'alice' }],
      },
      {
        metadata: { name: 'ns-metrics', namespace: 'a' },
        roleRef: { kind: 'ClusterRole', name: 'metrics' },
        subjects: [{ kind: 'ServiceAccount', name: 'x' }], // namespace taken from the binding
      },
    ],
  };
  const can = (user: RequestAttributes['user'], q: string) => authorize(objects, ask(user, q)).allowed;
  const table: [string, RequestAttributes['user'], string, boolean][] = [
    ['ClusterRole through a RoleBinding: its namespace', alice, 'list pods -n a', true],
    ['… but not another namespace', alice, 'list pods -n b', false],
    ['… nor cluster-wide', alice, 'list pods', false],
    ['verb not granted', alice, 'delete pods p -n a', false],
    ['resourceNames: the named object', alice, 'get configmaps cfg -n a', true],
    ['resourceNames: another object', alice, 'get configmaps other -n a', false],
    ['resourceNames never match a list', alice, 'list configmaps -n a', false],
    ['*/status through a group', alice, 'patch deployments.apps/status d -n z', true],
    ['*/status does not grant the main resource', alice, 'patch deployments.apps d -n z', false],
    ['*/status in another group', alice, 'patch deployments/status d -n z', false],
    ['subresource is not the resource', alice, 'get pods/log p -n a', false],
    ['nonResourceURL exact', alice, 'get /metrics', true],
    ['nonResourceURL prefix', alice, 'get /debug/pprof', true],
    ['nonResourceURL other', alice, 'get /logs', false],
    ['bootstrap: discovery for every authenticated user', alice, 'get /apis/apps', true],
    ['bootstrap: self reviews', alice, 'create selfsubjectaccessreviews.authorization.k8s.io', true],
    ['nonResourceURLs through a RoleBinding grant nothing', sa('x'), 'get /metrics', false],
    [
      'cluster-admin for system:masters',
      { username: 'admin', groups: ['system:masters'] },
      'delete nodes n',
      true,
    ],
  ];
  it.each(table)('%s', (_what, user, q, allowed) => expect(can(user, q)).toBe(allowed));

  it('a bare * resource covers subresources; ServiceAccount subjects need the namespace', () => {
    const star: RbacObjects = {
      roles: [],
      roleBindings: [],
      clusterRoles: [
        { metadata: { name: 'all' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get'] }] },
      ],
      clusterRoleBindings: [
        {
          metadata: { name: 'b' },
          roleRef: { kind: 'ClusterRole', name: 'all' },
          subjects: [{ kind: 'ServiceAccount', name: 'x', namespace: 'nodenet-system' }],
        },
      ],
    };
    expect(authorize(star, ask(sa('x'), 'get nodes/status n')).allowed).toBe(true);
    expect(authorize(star, ask(sa('y'), 'get nodes/status n')).allowed).toBe(false);
  });

  it('words the 403 as kube-apiserver does', () => {
    expect(forbiddenMessage(ask(alice, 'patch nodeconfigs.network.nodenet.io/status node-2'))).toBe(
      'nodeconfigs.network.nodenet.io "node-2" is forbidden: User "alice" cannot patch resource "nodeconfigs/status" in API group "network.nodenet.io" at the cluster scope',
    );
    expect(forbiddenMessage(ask(alice, 'list secrets -n kube-system'))).toBe(
      'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "kube-system"',
    );
    expect(forbiddenMessage(ask(alice, 'get /logs'))).toBe('forbidden: User "alice" cannot get path "/logs"');
    expect(forbiddenStatus(ask(alice, 'delete nodes n1'))).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      details: { name: 'n1', group: '', kind: 'nodes' },
    });
  });
});

describe('the roles deploy/ ships', () => {
  const root = fileURLToPath(new URL('../../../../', import.meta.url));
  const docs = parseAllDocuments(
    execFileSync('kubectl', ['kustomize', `${root}deploy`], { encoding: 'utf8' }),
  ).map((d) => d.toJSON() as { kind: string });
  const of = <T>(kind: string) => docs.filter((d) => d.kind === kind) as T[];
  const shipped: RbacObjects = {
    roles: of<Role>('Role'),
    clusterRoles: of<Role>('ClusterRole'),
    roleBindings: of<Binding>('RoleBinding'),
    clusterRoleBindings: of<Binding>('ClusterRoleBinding'),
  };
  const agent = sa('nodenet-agent');
  const configurator = sa('nodenet-configurator');
  const G = 'network.nodenet.io';
  const table: [string, RequestAttributes['user'], string, boolean][] = [
    // The agent: its informer, its status report, taint removal, events, the /version probe.
    ['agent', agent, `list nodeconfigs.${G}`, true],
    ['agent', agent, `watch nodeconfigs.${G}`, true],
    // The start-up self-check reads its NodeConfig (found missing by the least-privilege e2e test).
    ['agent', agent, `get nodeconfigs.${G} node-1`, true],
    ['agent', agent, `patch nodeconfigs.${G}/status node-1`, true],
    ['agent', agent, 'get nodes node-1', true],
    ['agent', agent, 'patch nodes node-1', true],
    // The NodenetAgentReady / NodenetReady Node conditions (agent self-check, #19).
    ['agent', agent, 'patch nodes/status node-1', true],
    ['agent', agent, 'create events -n default', true],
    ['agent', agent, 'patch events e -n default', true],
    ['agent', agent, 'get /version', true],
    ['agent', agent, `patch nodeconfigs.${G} node-1`, false],
    ['agent', agent, `update nodeconfigs.${G}/status node-1`, false],
    ['agent', agent, `delete nodeconfigs.${G} node-1`, false],
    ['agent', agent, 'delete nodes node-1', false],
    ['agent', agent, 'list nodes', false],
    ['agent', agent, `list networkconfigrevisions.${G}`, false],
    ['agent', agent, 'list secrets -n nodenet-system', false],
    // The configurator: inputs, revisions, NodeConfig specs, nodes, events, its Lease.
    ['configurator', configurator, `watch vrfrouteconfigurations.${G}`, true],
    ['configurator', configurator, `patch routingtables.${G}/status t`, true],
    ['configurator', configurator, `watch bgppeerings.${G}`, true],
    ['configurator', configurator, `patch bgppeerings.${G}/status p`, true],
    ['configurator', configurator, `update bgppeerings.${G} p`, false],
    ['configurator', configurator, `create networkconfigrevisions.${G}`, true],
    ['configurator', configurator, `update networkconfigrevisions.${G}/status r`, true],
    ['configurator', configurator, `delete networkconfigrevisions.${G} r`, true],
    // Revisions are labelled with a merge patch (found missing by the least-privilege e2e test).
    ['configurator', configurator, `patch networkconfigrevisions.${G} r`, true],
    // Readiness reads the Lease's namespace, and only that one.
    ['configurator', configurator, 'get namespaces nodenet-system -n nodenet-system', true],
    ['configurator', configurator, 'get namespaces kube-system -n kube-system', false],
    ['configurator', configurator, `create nodeconfigs.${G}`, true],
    ['configurator', configurator, `patch nodeconfigs.${G} node-1`, true],
    ['configurator', configurator, `delete nodeconfigs.${G} node-1`, true],
    ['configurator', configurator, 'watch nodes', true],
    ['configurator', configurator, 'create events -n default', true],
    ['configurator', configurator, 'create leases.coordination.k8s.io -n nodenet-system', true],
    [
      'configurator',
      configurator,
      'update leases.coordination.k8s.io nodenet-configurator -n nodenet-system',
      true,
    ],
    // … and nothing it does not need (invariant 1: NodeConfig status belongs to the agents).
    ['configurator', configurator, `patch nodeconfigs.${G}/status node-1`, false],
    ['configurator', configurator, `update vrfrouteconfigurations.${G} v`, false],
    ['configurator', configurator, `delete vrfrouteconfigurations.${G} v`, false],
    ['configurator', configurator, 'patch nodes node-1', false],
    ['configurator', configurator, 'update leases.coordination.k8s.io other -n nodenet-system', false],
    ['configurator', configurator, 'create leases.coordination.k8s.io -n kube-system', false],
    ['configurator', configurator, 'list secrets -n nodenet-system', false],
  ];
  it.each(table.map(([who, user, q, allowed]) => [who, q, allowed, user] as const))(
    '%s can-i %s → %s',
    (_who, q, allowed, user) => {
      expect(authorize(shipped, ask(user, q)).allowed).toBe(allowed);
    },
  );
});
