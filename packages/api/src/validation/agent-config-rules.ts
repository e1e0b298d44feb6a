/**
 * AgentConfiguration rules (issue #36): about one object (`AGENT_CONFIG_RULES`, after its schema
 * check: the template's syntax, what the health checks' patterns cannot say) and across objects
 * (`agentConfigClaims`: a node gets at most one). What passes, the agent can fill and run
 * (invariant 10): the template is parsed by the same function the agent fills it with.
 */
import { isIP } from 'node:net';
import { FrrTemplateSyntaxError, parseFrrTemplate } from '../grammar/frr-template.js';
import type { AgentConfiguration } from '../resources/objects.js';
import { selectorsDisjoint, selectorText } from '../config/selector.js';
import type { ObjectRule } from './object-rules.js';
import { problem, type Problem } from './problem.js';
import { checkSelector } from './selector-rules.js';

const A = 'AgentConfiguration';

const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const IFNAME = /^[A-Za-z0-9_.-]{1,15}$/;

const templateSyntax: ObjectRule<AgentConfiguration> = ({ metadata, spec }) => {
  try {
    parseFrrTemplate(spec.frrTemplate);
    return [];
  } catch (err) {
    if (!(err instanceof FrrTemplateSyntaxError)) throw err;
    return [problem({ kind: A, name: metadata.name }, 'spec.frrTemplate', undefined, err.message)];
  }
};

/** A TCP target is an address or a DNS name; a session's peer an address or an interface. */
const healthAddresses: ObjectRule<AgentConfiguration> = ({ metadata, spec }) => {
  const out: Problem[] = [];
  const at = { kind: A, name: metadata.name } as const;
  (spec.healthChecks?.tcp?.targets ?? []).forEach((t, i) => {
    if (!isIP(t.host) && !HOSTNAME.test(t.host))
      out.push(
        problem(
          at,
          `spec.healthChecks.tcp.targets[${i}].host`,
          t.host,
          'must be an IP address or a DNS name',
        ),
      );
  });
  (spec.healthChecks?.frr?.bgpSessions ?? []).forEach((s, i) => {
    if (!isIP(s.peer) && !IFNAME.test(s.peer))
      out.push(
        problem(
          at,
          `spec.healthChecks.frr.bgpSessions[${i}].peer`,
          s.peer,
          'must be an IP address or an interface name',
        ),
      );
  });
  const frr = spec.healthChecks?.frr;
  if (frr?.enabled === false && (frr.bgpSessions ?? []).length > 0)
    out.push(
      problem(
        at,
        'spec.healthChecks.frr.bgpSessions',
        frr.bgpSessions?.length,
        'cannot be checked with frr.enabled: false',
      ),
    );
  return out;
};

const agentSelector: ObjectRule<AgentConfiguration> = ({ metadata, spec }) =>
  spec.nodeSelector ? checkSelector(A, metadata.name, 'spec.nodeSelector', spec.nodeSelector) : [];

export const AGENT_CONFIG_RULES: ObjectRule<AgentConfiguration>[] = [
  templateSyntax,
  healthAddresses,
  agentSelector,
];

/**
 * A node's agent has one template and one set of checks: two AgentConfigurations whose selectors
 * could both match a node conflict, and the later one in blame order (`configs` come in that
 * order) is refused, naming the one that holds. Decided from the selectors alone
 * (selectorsDisjoint), so a relabelled node never turns an accepted object into a refused one.
 */
export function agentConfigClaims(configs: readonly AgentConfiguration[]): Problem[] {
  const out: Problem[] = [];
  const held: AgentConfiguration[] = [];
  for (const o of configs) {
    const holder = held.find((h) => !selectorsDisjoint(h.spec.nodeSelector, o.spec.nodeSelector));
    if (!holder) {
      held.push(o);
      continue;
    }
    out.push(
      problem(
        { kind: A, name: o.metadata.name },
        'spec.nodeSelector',
        selectorText(o.spec.nodeSelector),
        `may select the same nodes as AgentConfiguration ${holder.metadata.name} (nodeSelector ${selectorText(holder.spec.nodeSelector)}); a node takes its FRR template and health checks from one AgentConfiguration: give each a selector the other excludes (e.g. a label In different values, or DoesNotExist)`,
      ),
    );
  }
  return out;
}
