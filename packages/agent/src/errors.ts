/**
 * Typed errors of the agent. Each carries the context an operator needs to act on it (the file,
 * the field, the step) so a log line or a status message is enough to find the cause.
 */
import { describeCause, NodenetError, preview } from '@nodenet/api';

// One option error and one way to describe a cause for every package (OptionError is not an AgentError).
export { describeCause, OptionError, preview } from '@nodenet/api';

/** Base class of the agent's errors: `code` is stable and machine-readable; the message is for people. */
export class AgentError extends NodenetError {}

/** A checkpoint file exists but cannot be used: unreadable, torn, wrong checksum, unknown format. */
export class CheckpointCorruptError extends AgentError {
  constructor(
    readonly path: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('CheckpointCorrupt', `checkpoint ${path} is unusable: ${reason}`, options);
  }
}

/** Writing or removing a checkpoint file failed (disk full, permissions, read-only state dir). */
export class CheckpointWriteError extends AgentError {
  constructor(
    readonly path: string,
    readonly operation: 'write' | 'remove' | 'mkdir',
    options?: { cause?: unknown },
  ) {
    super(
      'CheckpointWriteFailed',
      `cannot ${operation} checkpoint ${path}: ${describeCause(options?.cause)}`,
      options,
    );
  }
}

/** The health-check configuration file is missing, not YAML, or has a bad field. */
export class HealthConfigError extends AgentError {
  constructor(
    readonly file: string | undefined,
    readonly field: string,
    readonly value: unknown,
    readonly problem: string,
  ) {
    super(
      'HealthConfigInvalid',
      `${file ?? 'health config'}: ${field}: ${problem}` +
        (value === undefined ? '' : ` (got ${preview(value)})`),
    );
  }
}
