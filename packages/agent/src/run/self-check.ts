/**
 * Start-up self-check: faults of this agent's own set-up (its FRR template, its VTEP interface) are
 * the node's, not a revision's. They are found before the agent touches anything: an empty config is
 * rendered through the template and checked with `vtysh -C`, and the VTEP interface must exist. On a
 * failure the agent applies nothing (so it never reports a revision `invalid` for it), stays not
 * ready, and says why on its NodeConfig (condition `AgentReady=False`, reason `AgentMisconfigured`)
 * and on its Node (condition `NodenetAgentReady=False`). The configurator treats such a node as
 * unavailable: no slot, reported as degraded, never counted against a revision.
 */
import { access } from 'node:fs/promises';
import {
  AGENT_MISCONFIGURED_REASON,
  AGENT_READY_CONDITION,
  NODE_AGENT_READY_CONDITION,
  type Condition,
} from '@nodenet/api';
import { isNotFound, type Clients } from '@nodenet/kube';
import type { Logger } from 'pino';
import { boundText } from '../bounded.js';
import { describeCause } from '../errors.js';

export interface SelfCheckProblem {
  check: 'frr-template' | 'vtep-interface' | 'health-config' | 'router-id';
  message: string;
}

export interface SelfCheckDeps {
  /**
   * The FRR config for an empty NodeConfig, through the bootstrap template (throws on a bad
   * template); undefined without one (the NodeConfigs bring theirs).
   */
  renderEmpty: () => string | undefined;
  /** `vtysh -C` on a config text (throws quoting vtysh). */
  checkFrr: (text: string) => Promise<void>;
  vtepInterface: string;
  /** Whether a network interface exists in this network namespace. */
  interfaceExists?: (name: string) => Promise<boolean>;
}

/** Whether `/sys/class/net/<name>` exists (sysfs shows the agent's own network namespace). */
export const sysfsInterfaceExists = async (name: string): Promise<boolean> =>
  access(`/sys/class/net/${name}`).then(
    () => true,
    () => false,
  );

export async function selfCheck(deps: SelfCheckDeps): Promise<SelfCheckProblem[]> {
  const problems: SelfCheckProblem[] = [];
  const exists = deps.interfaceExists ?? sysfsInterfaceExists;
  if (!(await exists(deps.vtepInterface)))
    problems.push({
      check: 'vtep-interface',
      message: `--vtep-interface ${deps.vtepInterface}: no such interface on this node`,
    });
  try {
    const empty = deps.renderEmpty();
    if (empty !== undefined) await deps.checkFrr(empty);
  } catch (err) {
    problems.push({
      check: 'frr-template',
      message: `--frr-template: an empty configuration rendered through it is refused: ${describeCause(err)}`,
    });
  }
  return problems;
}

/** One line for the status, the Node condition and /readyz, bounded (bounded.ts; the log has it whole). */
export const problemsText = (problems: readonly SelfCheckProblem[]): string =>
  boundText(`agent misconfigured: ${problems.map((p) => p.message).join('; ')}`);

/** The NodeConfig condition for the self-check's outcome (no observedGeneration: not an answer to a spec). */
export function agentReadyCondition(problems: readonly SelfCheckProblem[], now: string): Condition {
  return problems.length
    ? {
        type: AGENT_READY_CONDITION,
        status: 'False',
        reason: AGENT_MISCONFIGURED_REASON,
        message: problemsText(problems),
        lastTransitionTime: now,
      }
    : {
        type: AGENT_READY_CONDITION,
        status: 'True',
        reason: 'SelfCheckPassed',
        message: 'FRR template and VTEP interface checked at start-up',
        lastTransitionTime: now,
      };
}

/**
 * Says on the NodeConfig and the Node that this agent is misconfigured, and keeps saying it: the
 * NodeConfig may not exist yet (the configurator creates it), so it retries every `retryMs` until
 * stopped. Returns a stop function.
 */
export function reportMisconfigured(
  clients: Clients,
  nodeName: string,
  problems: readonly SelfCheckProblem[],
  reporting: { log: Logger; retryMs?: number },
): () => void {
  const { log, retryMs = 5000 } = reporting;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const once = async (): Promise<boolean> => {
    const cond = agentReadyCondition(problems, now());
    let done = true;
    try {
      const nc = await clients.nodeConfig.get(nodeName);
      const others = (nc.status?.conditions ?? []).filter((c) => c.type !== AGENT_READY_CONDITION);
      if (
        nc.status?.conditions?.some((c) => c.type === AGENT_READY_CONDITION && c.message === cond.message) !==
        true
      )
        await clients.nodeConfig.patchStatus(
          nodeName,
          { status: { conditions: [...others, cond] } },
          undefined,
          {
            fieldManager: 'nodenet-agent',
          },
        );
    } catch (err) {
      done = false;
      if (!isNotFound(err)) log.warn({ err: describeCause(err) }, 'could not write the AgentReady condition');
    }
    try {
      // Strategic merge keyed by condition type: the kubelet's conditions stay as they are.
      await clients.client.request('PATCH', `${clients.node.objectPath(nodeName)}/status`, {
        body: {
          status: {
            conditions: [
              {
                type: NODE_AGENT_READY_CONDITION,
                status: 'False',
                reason: AGENT_MISCONFIGURED_REASON,
                message: cond.message,
                lastHeartbeatTime: cond.lastTransitionTime,
                lastTransitionTime: cond.lastTransitionTime,
              },
            ],
          },
        },
        contentType: 'application/strategic-merge-patch+json',
        query: { fieldManager: 'nodenet-agent' },
      });
    } catch (err) {
      log.warn({ err: describeCause(err) }, 'could not write the Node condition');
    }
    return done;
  };
  const loop = async (): Promise<void> => {
    if (stopped) return;
    if (await once()) return;
    if (!stopped) timer = setTimeout(() => void loop(), retryMs);
  };
  void loop();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

/** Removes a misconfiguration left by an earlier run from the NodeConfig (when there is one). */
export async function clearMisconfigured(clients: Clients, nodeName: string, log: Logger): Promise<void> {
  try {
    const nc = await clients.nodeConfig.get(nodeName);
    const conds = nc.status?.conditions ?? [];
    if (!conds.some((c) => c.type === AGENT_READY_CONDITION && c.status === 'False')) return;
    await clients.nodeConfig.patchStatus(
      nodeName,
      { status: { conditions: conds.filter((c) => c.type !== AGENT_READY_CONDITION) } },
      undefined,
      { fieldManager: 'nodenet-agent' },
    );
  } catch (err) {
    if (!isNotFound(err)) log.warn({ err: describeCause(err) }, 'could not clear the AgentReady condition');
  }
}
