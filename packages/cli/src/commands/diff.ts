/** `kubectl nodenet diff [FROM] [TO] [-f FILE…]`: what a change does to each node. */
import { nodeAddressesOf, siteUnderlayOf, type UnderlayContext } from '@nodenet/api';
import type { Clients } from '@nodenet/kube';
import type { Command } from 'commander';
import { withFiles } from '../cluster/input-files.js';
import {
  findRevision,
  readInputs,
  readState,
  revisionInForce,
  type ClusterState,
  type Revision,
} from '../cluster/state.js';
import { CliError, EXIT, type ExitCode } from '../exit-codes.js';
import { diffNodes, renderDiff, type DiffResult, type DiffSide } from '../views/diff.js';
import { hostDiffExitCode, runHostDiff, type HostDiffOptions } from './diff-host.js';
import { previewOf, renderHeldBack, renderProblems, type Preview } from '../views/preview.js';
import { commonOptions, outputOption, REVISION_ARG, type Session } from './session.js';

interface DiffArgs {
  kube: Clients;
  state: ClusterState;
  from: Revision | undefined;
  toArg: string | undefined;
  files: string[] | undefined;
  underlay: UnderlayContext;
}

/** The configurator's underlay flags, taken by `diff` so that it refuses what the configurator refuses. */
interface UnderlayFlags {
  underlayCidr?: string;
  allowDefaultVrfPeering?: boolean;
  allowDefaultRouteImport?: boolean;
}

export function addDiffCommand(program: Command, s: Session): void {
  program
    .command('diff')
    .description(
      'What changes on each node between two revisions: VRFs, Layer-2 networks and routing tables added, removed or ' +
        'changed, with the node selector that caused it. FROM defaults to the revision in force, TO to the current ' +
        'inputs: with no arguments, a preview of what the next rollout will do, before anything rolls out. ' +
        'Inputs the configurator holds back (refused, or the change that broke an invalid revision) are left out, ' +
        'as the configurator leaves them out, and listed with the reason. ' +
        'Exit code 0: no differences, 1: differences (as kubectl diff), 4: some input is held back or selects no node.',
    )
    .argument('[from]', `${REVISION_ARG}; default: the revision in force`)
    .argument('[to]', `${REVISION_ARG}; default: the current inputs`)
    .option(
      '-f, --filename <file...>',
      'input objects (YAML, as for kubectl apply -f) taken as applied on top of the current inputs: a preview before applying',
    )
    .option(
      '--host',
      'what each node will do (netlink steps, FRR lines) and how disruptive it is (docs/operations.md)',
    )
    .option('--node <name>', 'with --host: only this node')
    .option(
      '--frr-template <file>',
      "with --host: the nodes' FRR template (default: nodenet's sections only)",
    )
    .option(
      '--protect <address...>',
      'with --host: addresses the nodes must keep reaching (ADDRESS or ADDRESS=WHAT)',
    )
    .option(
      '--underlay-cidr <cidr,...>',
      "the configurator's --underlay-cidr: the preview refuses the peerings it refuses (the Nodes' addresses are read)",
    )
    .option('--allow-default-vrf-peering', "the configurator's --allow-default-vrf-peering")
    .option('--allow-default-route-import', "the configurator's --allow-default-route-import")
    .addOption(outputOption())
    .action(
      async (
        fromArg: string | undefined,
        toArg: string | undefined,
        o: { filename?: string[]; host?: boolean } & HostDiffOptions & UnderlayFlags,
        cmd: Command,
      ) => {
        const c = commonOptions(cmd);
        const site = underlayFlags(o);
        const kube = s.connect(c);
        const state = await readState(kube);
        const from = fromArg !== undefined ? findRevision(state, fromArg) : revisionInForce(state);
        const underlay = { ...site, nodeAddresses: nodeAddressesOf(state.nodes) };
        const to = await diffTarget({ kube, state, from, toArg, files: o.filename, underlay });
        if ('problems' in to) {
          s.print(c, to, () => renderProblems(to.problems));
          s.exit(EXIT.attention);
          return;
        }
        const { notes, heldBack } = to;
        if (o.host) {
          const plan = runHostDiff(s, c, {
            state,
            server: kube.client.server,
            from: from && side(from),
            to: to.side,
            options: o,
          });
          s.exit(heldBack.length > 0 ? EXIT.attention : hostDiffExitCode(plan));
          return;
        }
        const nodes = state.nodes.map((n) => ({ name: n.metadata.name, labels: n.metadata.labels ?? {} }));
        const result = diffNodes(from && side(from), to.side, nodes);
        s.print(
          c,
          { ...result, notes, heldBack },
          () => renderDiff(result) + notes.map((n) => `\n${n}\n`).join('') + renderHeldBack(heldBack),
        );
        s.exit(diffExitCode(result, heldBack.length > 0));
      },
    );
}

/** The TO side: a revision, or the preview of the current inputs (with the -f files laid over them). */
async function diffTarget(a: DiffArgs): Promise<Preview> {
  if (a.toArg !== undefined) {
    if (a.files)
      throw new CliError('-f/--filename compares with the current inputs: give no TO revision', EXIT.usage);
    return { side: side(findRevision(a.state, a.toArg)), notes: [], heldBack: [] };
  }
  const label = a.files ? `current inputs + ${a.files.join(', ')}` : 'current inputs';
  const inputs = await withFiles(a.kube, await readInputs(a.kube), a.files ?? []);
  return previewOf(inputs, label, a.state, { from: a.from, underlay: a.underlay });
}

/** The underlay flags, or a usage error (exit 2) naming the value. */
function underlayFlags(o: UnderlayFlags): ReturnType<typeof siteUnderlayOf> {
  try {
    return siteUnderlayOf(o);
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err), EXIT.usage);
  }
}

function diffExitCode(result: DiffResult, heldBack: boolean): ExitCode {
  if (heldBack || result.selectsNoNode.length > 0) return EXIT.attention;
  return result.changedNodes > 0 ? EXIT.pending : EXIT.ok;
}

function side(r: Revision): DiffSide {
  return { label: r.metadata.name, config: r.spec.config, hash: r.spec.hash };
}
