/**
 * Exit codes of `kubectl nodenet`, so scripts can branch without parsing text. `diff` follows
 * `kubectl diff` (1 = there are differences); `status` says whether the rollout is done, still
 * moving, or needs a person.
 */
import { NodenetError } from '@nodenet/api';
export const EXIT = {
  /** Done: the command did what was asked; `status`: the revision is complete and healthy. */
  ok: 0,
  /** `diff`: differences found. `status`: rolling out or paused (not finished, nothing wrong). */
  pending: 1,
  /** Bad usage: unknown flag, bad argument, missing confirmation. */
  usage: 2,
  /** The named revision (or any revision at all) does not exist. */
  notFound: 3,
  /** `status`: the revision is invalid (rollout halted) or nodes failed / are degraded; `diff`: the inputs are invalid. */
  attention: 4,
  /** The API server could not be reached or refused a request. */
  apiError: 5,
  /** A control that does not apply in the current state (e.g. retry of a valid revision). */
  refused: 6,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that ends the command with a message and a specific exit code. */
export class CliError extends NodenetError {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(`Exit${exitCode}`, message);
  }
}
