/**
 * The ledger's view of the world after a pass (ledger-view.ts): the revisions with their pause as
 * it was when the pass began, availability before it, what each node's host runs, the agents'
 * reports and the knobs in force. A view, so the ledger never reaches into the world's state.
 */
import type { NetworkConfigRevision } from '@nodenet/api';
import type { LedgerView } from './ledger-view.js';
import { takenRightly } from './operator.js';
import type { AgentReports } from './reports.js';
import type { WorldState } from './world-state.js';

export interface BeforePass {
  before: ReadonlyMap<string, NetworkConfigRevision>;
  unavailableBefore: ReadonlyMap<string, string | undefined>;
}

export function ledgerViewOf(
  world: WorldState,
  reports: AgentReports,
  { before, unavailableBefore }: BeforePass,
): LedgerView {
  return {
    t: world.t,
    fleetPaused: world.fleetPaused,
    // Pause as it was when the pass began; the rest of the revision as it is now.
    revision: (name: string) => {
      const r = world.store.revisions.get(name) ?? before.get(name);
      const b = before.get(name);
      return r && b ? { ...r, spec: { ...r.spec, paused: b.spec.paused === true } } : r;
    },
    revisionByNumber: (n: number) => world.revisionByNumber(n),
    unavailable: (n: string) => (unavailableBefore.has(n) ? unavailableBefore.get(n) : world.unavailable(n)),
    harms: (n: string, r: NetworkConfigRevision) => world.harms(n, r),
    nodeContent: (n: string, r: NetworkConfigRevision) => world.nodeContent(n, r),
    // A fault still going on (a cut not caused by a change) counts as now.
    lastFaultAt: (n: string) => {
      const x = world.nodes.get(n);
      // So do an agent broken right now (it fails whatever it is handed) and a kubelet flapping.
      const broken = x !== undefined && x.agent !== 'good' && x.agent !== 'slow';
      const going = (x?.cut && !x.cut.byChange) || (x?.flap && x.flap.byChange === undefined);
      return going || broken ? world.t : x?.lastFaultAt;
    },
    agentOk: (n: string) => {
      const node = world.nodes.get(n);
      return node !== undefined && !node.cut && (node.agent === 'good' || node.agent === 'slow');
    },
    interruptions: (n: string, num: number) => reports.interruptions(n, num),
    answeredSince: (n: string, num: number, at: number) => reports.answeredSince(n, num, at),
    reportedInvalidOn: (n: string, num: number) => reports.reportedInvalidOn(n, num),
    notReadySince: (n: string, at: number) => (world.nodes.get(n)?.lastNotReadyAt ?? -1) >= at,
    interruptedOn: (n: string, num: number, since: number) => reports.interruptedOn(n, num, since),
    limit: world.knobs.maxLimit,
    maxFailures: world.knobs.maxFailures,
    // Invariant 6 (issue 35): what the node's host runs, the inputs that exist, the revisions.
    hostContent: (n: string) => {
      const h = world.nodes.get(n)?.host;
      const r =
        h !== undefined ? [...world.store.revisions.values()].find((x) => x.spec.hash === h) : undefined;
      return r ? world.nodeContent(n, r) : undefined;
    },
    inputExists: (k: string) => world.inputs.has(k),
    takenRightly: (k: string, value: number, to?: number) => takenRightly(world, k, value, to),
    revisionsNewestFirst: () =>
      [...world.store.revisions.values()].sort((a, b) => b.spec.number - a.spec.number),
  };
}
