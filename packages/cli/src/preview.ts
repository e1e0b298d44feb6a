/**
 * The TO side of `diff` without a TO revision: the configuration the configurator would build from
 * the current inputs (validated and merged by @nodenet/api, as the configurator does), and what
 * would happen to it (pure).
 */
import { buildConfig, validateInputs, type Inputs, type Problem } from '@nodenet/api';
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
  const built = buildConfig(inputs);
  const notes: string[] = [];
  const known = s.revisions.find((r) => r.spec.hash === built.hash);
  if (known && isInvalid(known))
    notes.push(
      `The current inputs equal invalid revision ${known.metadata.name}: they are not rolled out until you run kubectl nodenet retry ${known.metadata.name}.`,
    );
  else if (known && known !== from) notes.push(`The current inputs equal revision ${known.metadata.name}.`);
  return { side: { label, ...built }, notes };
}

/**
 * Hash of the configuration the configurator builds from these inputs, or undefined when it cannot
 * be told here (some input is refused: the configurator then builds from the accepted ones).
 */
export function inputsHash(inputs: Inputs, _inForce: Revision | undefined): string | undefined {
  return validateInputs(inputs).length > 0 ? undefined : buildConfig(inputs).hash;
}

export function renderProblems(problems: Problem[]): string {
  return (
    `The current inputs have ${problems.length} problem(s); no new revision is built until they are fixed:\n` +
    problems.map((p) => `  ${p.kind}/${p.name}: ${p.message}\n`).join('')
  );
}
