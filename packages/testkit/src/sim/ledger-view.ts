/** The ledger's view of the world (world-ledger-view.ts builds it after each pass). */
import type { NetworkConfigRevision } from '@nodenet/api';
import type { BadChange } from './types.js';

/** What the ledger needs to know about the world at the moment of a pass. */
export interface LedgerView {
  t: number;
  fleetPaused: boolean;
  revision(name: string): NetworkConfigRevision | undefined;
  revisionByNumber(n: number): NetworkConfigRevision | undefined;
  /** Why the node is observably unavailable now (undefined: available). */
  unavailable(node: string): string | undefined;
  /** The revision's content as this node carries it (inputs whose nodeSelector takes it). */
  nodeContent(node: string, revision: NetworkConfigRevision): Record<string, number>;
  /** The bad changes in this revision that harm this node. */
  harms(node: string, revision: NetworkConfigRevision): BadChange[];
  /**
   * The node's last status report on the given revision number was an Interrupted failure, made
   * after `since` (the last time it was handed the revision).
   */
  interruptedOn(node: string, number: number, since: number): boolean;
  /** How many Interrupted reports the node's agent made on revision `number`. */
  interruptions(node: string, number: number): number;
  /** The node's kubelet was NotReady (or its Node gone) at some time since `at`. */
  notReadySince(node: string, at: number): boolean;
  /** The node's agent wrote a status on revision `number` since `at` (it answered its assignment). */
  answeredSince(node: string, number: number, at: number): boolean;
  /** The node's agent itself reported the revision invalid (an answer, not a silence). */
  reportedInvalidOn(node: string, number: number): boolean;
  /** The node's agent works as it should (good or slow, not cut off): ground truth. */
  agentOk(node: string): boolean;
  /** The last fault that hit the node (undefined: none). */
  lastFaultAt(node: string): number | undefined;
  limit: number;
  maxFailures: number;
  /** Invariant 6: the inputs (and values) on the node's host now; undefined: unknown or nothing. */
  hostContent(node: string): Record<string, number> | undefined;
  /** Invariant 6: the input exists (the operator has not deleted it). */
  inputExists(input: string): boolean;
  /** Invariant 6: `input=value` is a bad change (ground truth), or a person deleted it before revision `to` was built. */
  takenRightly(input: string, value: number, to?: number): boolean;
  /** Invariant 6: every revision, newest first. */
  revisionsNewestFirst(): NetworkConfigRevision[];
}
