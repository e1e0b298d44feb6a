/**
 * Typed errors of the agent. Each carries the context an operator needs to act on it (the file,
 * the field, the step) so a log line or a status message is enough to find the cause.
 */

/** Base class: `code` is stable and machine-readable; the message is for people. */
export class AgentError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

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

/** A command-line option or environment variable has a bad value. */
export class OptionError extends AgentError {
  constructor(
    readonly option: string,
    readonly value: unknown,
    readonly problem: string,
  ) {
    super('InvalidOption', `${option}: ${problem} (got ${preview(value)})`);
  }
}

export function describeCause(cause: unknown): string {
  if (cause instanceof AgentError) return cause.message;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code && !cause.message.includes(code) ? `${code}: ${cause.message}` : cause.message;
  }
  return String(cause);
}

/** Short rendering of a user-supplied value for an error message. */
export function preview(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
