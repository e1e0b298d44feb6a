/**
 * `kubectl nodenet diff --host`: the host plan of each node (views/host-diff.ts). The FRR template
 * is the one each node gets (its AgentConfiguration, carried in the revision), `--frr-template`
 * overriding it; a node no AgentConfiguration selects renders with nodenet's sections only (its
 * agent's bootstrap template and AS number are not in the cluster: the plan then shows every line
 * nodenet changes, none of the operator's).
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import {
  parseTemplate,
  PREVIEW_SETTINGS,
  sectionsTemplate,
  type FrrTemplate,
  type ProtectedAddress,
} from '@nodenet/agent/host-plan';
import { CliError, EXIT, type ExitCode } from '../exit-codes.js';
import type { ClusterState } from '../cluster/state.js';
import type { DiffSide } from '../views/diff.js';
import { hostDiff, needsAttention, renderHostDiff, type HostDiffResult } from '../views/host-diff.js';
import type { Common, Session } from './session.js';

export interface HostDiffOptions {
  node?: string;
  frrTemplate?: string;
  protect?: string[];
}

export function runHostDiff(
  s: Session,
  c: Common,
  a: {
    state: ClusterState;
    server: string;
    from: DiffSide | undefined;
    to: DiffSide;
    options: HostDiffOptions;
  },
): HostDiffResult {
  const nodes = a.state.nodes
    .filter((n) => a.options.node === undefined || n.metadata.name === a.options.node)
    .map((n) => ({
      name: n.metadata.name,
      labels: n.metadata.labels ?? {},
      addresses: (n.status?.addresses ?? []).filter((x) => x.type === 'InternalIP').map((x) => x.address),
    }));
  if (a.options.node !== undefined && nodes.length === 0)
    throw new CliError(`--node ${a.options.node}: no such Node`, EXIT.usage);
  const result = hostDiff({
    from: a.from,
    to: a.to,
    nodes,
    ...templateOf(a.options.frrTemplate),
    settings: PREVIEW_SETTINGS,
    protectedAddresses: [...apiServerAddress(a.server), ...(a.options.protect ?? []).map(protectedOf)],
  });
  const { fleet: _printed, ...data } = result;
  s.print(c, data, () => renderHostDiff(result));
  return result;
}

/** The process exit code of a host diff: 4 when a plan needs a look, 1 when nodes change, else 0. */
export const hostDiffExitCode = (r: HostDiffResult): ExitCode =>
  needsAttention(r) ? EXIT.attention : r.groups.length > 0 ? EXIT.pending : EXIT.ok;

/**
 * Without `--frr-template`, each side renders with the template its NodeConfig spec carries (the
 * AgentConfiguration that selects the node, read from the cluster) and nodenet's sections only for a
 * node none selects (its agent's bootstrap template is not in the cluster); the file overrides both.
 */
function templateOf(file: string | undefined): {
  template: FrrTemplate;
  templateLabel?: string;
  templateOverride?: boolean;
} {
  if (file === undefined) return { template: sectionsTemplate() };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`--frr-template ${file}: ${(err as Error).message}`, EXIT.usage);
  }
  try {
    return { template: parseTemplate(text), templateLabel: file, templateOverride: true };
  } catch (err) {
    throw new CliError(`--frr-template ${file}: ${(err as Error).message}`, EXIT.usage);
  }
}

/** The API server's address, when the kubeconfig names it by address (a name says nothing of where it is). */
function apiServerAddress(server: string): ProtectedAddress[] {
  let host: string;
  try {
    host = new URL(server).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return [];
  }
  return isIP(host) ? [{ address: host, what: 'the API server' }] : [];
}

/** `--protect 10.98.0.2` or `--protect 10.98.0.2=health-check-target`. */
function protectedOf(text: string): ProtectedAddress {
  const [address = '', what] = text.split('=', 2);
  if (isIP(address) === 0)
    throw new CliError(`--protect ${text}: not an IP address (ADDRESS or ADDRESS=WHAT)`, EXIT.usage);
  return { address, what: what || address };
}
