/**
 * The base of nodenet's typed errors: `code` is stable and machine-readable (logs, metrics, status
 * reasons), the message is for people and names the field, value or object to act on.
 */
export class NodenetError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A command-line option (or the environment variable standing in for one) has a bad value. */
export class OptionError extends NodenetError {
  constructor(
    readonly option: string,
    readonly value: unknown,
    readonly problem: string,
  ) {
    super('InvalidOption', `${option}: ${problem} (got ${preview(value)})`);
  }
}

/** The message of any thrown value, with a Node errno code when the message lacks it. */
export function describeCause(cause: unknown): string {
  if (cause instanceof NodenetError) return cause.message;
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
