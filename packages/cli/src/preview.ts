/**
 * The TO side of `diff` without a TO revision: the configuration the configurator would build from
 * the current inputs (validated and merged by @nodenet/api, as the configurator does), and what
 * would happen to it (pure).
 */
import { buildConfig, configWithLoopbacks, validateInputs, type Inputs, type Problem } from '@nodenet/api';
import type { DiffSide } from './diff.js';
import { isInvalid, type ClusterState, type Revision } from './state.js';

export type Preview = { problems: Problem[] } | { side: DiffSide; notes: string[] };

export function previewOf(
  inputs: Inputs,
  label: string,
  s: ClusterState,
  from: Revision | undefined,
): Preview {
  const problems = validateInputs(inputs);
  if (problems.length > 0) return { problems };
  const built = withAddresses(inputs, s);
  const notes: string[] = [];
  const known = s.revisions.find((r) => r.spec.hash === built.hash);
  if (known && isInvalid(known))
    notes.push(
      `The current inputs equal invalid revision ${known.metadata.name}: they are not rolled out until you run kubectl nodenet retry ${known.metadata.name}.`,
    );
  else if (known && known !== from) notes.push(`The current inputs equal revision ${known.metadata.name}.`);
  return { side: { label, config: built.config, hash: built.hash }, notes };
}

/**
 * The merged inputs with the loopback addresses the configurator would give (configWithLoopbacks,
 * the configurator's own step), from the newest revision and every Node. A configurator run with
 * --node-selector allocates for its nodes only; the preview can not know that flag.
 */
function withAddresses(
  inputs: Inputs,
  s: Pick<ClusterState, 'revisions' | 'nodes'> | undefined,
): ReturnType<typeof configWithLoopbacks> {
  const nodes = (s?.nodes ?? []).map((n) => ({ name: n.metadata.name, labels: n.metadata.labels ?? {} }));
  return configWithLoopbacks(buildConfig(inputs), s?.revisions ?? [], nodes);
}

/**
 * Hash of the configuration the configurator builds from these inputs, or undefined when it cannot
 * be told here (some input is refused: the configurator then builds from the accepted ones).
 */
export function inputsHash(
  inputs: Inputs,
  _inForce: Revision | undefined,
  s?: Pick<ClusterState, 'revisions' | 'nodes'>,
): string | undefined {
  return validateInputs(inputs).length > 0 ? undefined : withAddresses(inputs, s).hash;
}

export function renderProblems(problems: Problem[]): string {
  return (
    `The current inputs have ${problems.length} problem(s); no new revision is built until they are fixed:\n` +
    problems.map((p) => `  ${p.kind}/${p.name}: ${p.message}\n`).join('')
  );
}
