/**
 * What the operator's actions, the faults and the ledger's view read and change of the world
 * (world.ts World is it): an interface of its own so those modules, which world.ts runs, need not
 * import the world back.
 */
import type { NetworkConfigRevision } from '@nodenet/api';
import type { IncrementalPlanner } from '@nodenet/configurator';
import type { History } from './history.js';
import type { KnobsInForce } from './knobs.js';
import type { Ledger } from './ledger.js';
import type { SimInput, Store } from './planner-adapter.js';
import type { freshObservations } from './planner-pass.js';
import type { AgentMode, BadChange, SimNode } from './types.js';

/** A node as it joins the world. */
export interface JoiningNode {
  name: string;
  agent: AgentMode;
  labels: Record<string, string>;
  /** Carries the start-up taint. */
  taint: boolean;
  /** Its agent has reported before (the nodes of revision 1). */
  reported: boolean;
}

export interface WorldState {
  /** The virtual monotonic clock (ms). */
  t: number;
  readonly store: Store;
  readonly inputs: Map<string, SimInput>;
  readonly inputValues: Map<string, number[]>;
  /** Per input: the newest revision when it was last deleted. */
  readonly deletedAt: Map<string, number>;
  readonly nodes: Map<string, SimNode>;
  fleetPaused: boolean;
  /** How far the configurator's wall clock jumped: its timestamps only, never a deadline. */
  wallOffset: number;
  observations: ReturnType<typeof freshObservations>;
  leaderFrom: number;
  desired: { name: string; number: number; hash: string } | undefined;
  buildDirty: boolean;
  readonly ledger: Ledger;
  readonly knobs: KnobsInForce;
  readonly history: History;
  readonly incremental?: IncrementalPlanner;
  log(line: string): void;
  newestInvalid(): NetworkConfigRevision | undefined;
  revisionByNumber(n: number): NetworkConfigRevision | undefined;
  writeInput(name: string, value: number, zone?: string | null): void;
  addNode(n: JoiningNode): void;
  harms(node: string, r: NetworkConfigRevision | undefined): BadChange[];
  nodeContent(node: string, r: NetworkConfigRevision): Record<string, number>;
  unavailable(name: string): string | undefined;
}
