/**
 * AgentConfiguration (issue #36): what the agent puts on a node besides the inputs' sections — the
 * FRR base template and the health checks — as an input like the others, so a change of either is
 * a revision and goes through the gated rollout, the confirm window and the rollback (invariant 14).
 * The health checks are the schema of the agent's `--health-config` file (agent/src/health/config.ts);
 * both are checked here, by the CRD and by the configurator, and again by the agent.
 */
import { Type, type Static } from '@sinclair/typebox';
import * as L from '../grammar/limits.js';
import { LabelSelector, Name } from './common.js';

/** Kernel interface names, as the agent's health checks read them. */
export const HEALTH_IFNAME_PATTERN = '^[A-Za-z0-9_.-]{1,15}$';
/** An IPv4 / IPv6 literal or a DNS name (the configurator checks which one: object rules). */
export const HEALTH_HOST_PATTERN = '^[A-Za-z0-9][A-Za-z0-9.:-]*$';
const TAINT_KEY_PATTERN =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$';

const Ms = (max: number, description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: max, description }));
const TimeoutMs = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: 60_000, description }));
const Retries = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: 10, description }));

export const HealthTcpTarget = Type.Object({
  host: Type.String({ pattern: HEALTH_HOST_PATTERN, maxLength: 253, description: 'IP address or DNS name.' }),
  port: Type.Integer({ minimum: 1, maximum: 65_535 }),
  name: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]{1,63}$', maxLength: 63 })),
  timeoutMs: TimeoutMs('Per connection attempt.'),
  retries: Retries('Extra attempts after the first.'),
  retryDelayMs: Ms(10_000, 'Pause between attempts.'),
  refusedIsReachable: Type.Optional(Type.Boolean({ description: 'A TCP RST proves the path works.' })),
});

/** The agent's health checks (docs/operations.md, "Health checks"); every section optional. */
export const HealthChecks = Type.Object({
  interfaces: Type.Optional(
    Type.Array(Type.String({ pattern: HEALTH_IFNAME_PATTERN, maxLength: 15 }), {
      maxItems: L.MAX_HEALTH_ITEMS,
      description: 'Interfaces that must be operationally up after an apply.',
    }),
  ),
  tcp: Type.Optional(
    Type.Object({
      timeoutMs: TimeoutMs('Per connection attempt (default 3000).'),
      retries: Retries('Extra attempts after the first (default 2).'),
      retryDelayMs: Ms(10_000, 'Pause between attempts (default 200).'),
      refusedIsReachable: Type.Optional(Type.Boolean()),
      targets: Type.Optional(Type.Array(HealthTcpTarget, { maxItems: L.MAX_HEALTH_ITEMS })),
    }),
  ),
  apiServer: Type.Optional(
    Type.Object({
      enabled: Type.Optional(Type.Boolean()),
      timeoutMs: TimeoutMs('Default 2000.'),
      retries: Retries('Default 1.'),
    }),
  ),
  frr: Type.Optional(
    Type.Object(
      {
        enabled: Type.Optional(Type.Boolean()),
        bgpSessions: Type.Optional(
          Type.Array(
            Type.Object({
              peer: Type.String({ pattern: HEALTH_HOST_PATTERN, maxLength: 45 }),
              vrf: Type.Optional(Type.String({ pattern: HEALTH_IFNAME_PATTERN, maxLength: 15 })),
            }),
            { maxItems: L.MAX_HEALTH_ITEMS, description: 'Sessions that must be Established.' },
          ),
        ),
      },
      {
        'x-kubernetes-validations': [
          {
            rule: '!has(self.enabled) || self.enabled || !has(self.bgpSessions) || size(self.bgpSessions) == 0',
            message: 'bgpSessions cannot be checked with enabled: false',
            fieldPath: '.bgpSessions',
          },
        ],
      },
    ),
  ),
  startupTaints: Type.Optional(
    Type.Array(Type.String({ pattern: TAINT_KEY_PATTERN, maxLength: 316 }), {
      maxItems: L.MAX_HEALTH_ITEMS,
      description: 'Taint keys removed from the Node after the first success.',
    }),
  ),
});
export type HealthChecks = Static<typeof HealthChecks>;

const FrrTemplate = Type.String({
  minLength: 1,
  maxLength: L.MAX_FRR_TEMPLATE_LENGTH,
  description:
    'The FRR base template: a complete frr.conf with the placeholders {{ asn }}, {{ router_id }} and the section placeholders (docs/operations.md, "FRR base template").',
});

export const AgentConfigurationSpec = Type.Object({
  frrTemplate: FrrTemplate,
  healthChecks: Type.Optional(HealthChecks),
  nodeSelector: Type.Optional(LabelSelector),
});
export type AgentConfigurationSpec = Static<typeof AgentConfigurationSpec>;

/** An AgentConfiguration as a revision carries it (present only when some object exists). */
export const AgentConfigEntry = Type.Object({
  name: Name({ description: 'Name of the AgentConfiguration it came from.' }),
  frrTemplate: Type.String({ maxLength: L.MAX_FRR_TEMPLATE_LENGTH }),
  healthChecks: Type.Optional(HealthChecks),
  nodeSelector: Type.Optional(LabelSelector),
});
export type AgentConfigEntry = Static<typeof AgentConfigEntry>;

/**
 * The agent configuration a node receives: the one AgentConfiguration that selects it. Absent: none
 * does, and the agent uses its bootstrap `--frr-template` / `--health-config`.
 */
export const NodeAgentConfig = Type.Omit(AgentConfigEntry, ['nodeSelector']);
export type NodeAgentConfig = Static<typeof NodeAgentConfig>;
