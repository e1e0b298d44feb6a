/** The `--log-level` values of every binary (pino's levels). */
import { OptionError } from '@nodenet/api';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `text` as a log level; anything else fails with an `OptionError` naming `flag`. */
export function parseLogLevel(flag: string, text: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(text))
    throw new OptionError(flag, text, `must be one of ${LOG_LEVELS.join(', ')}`);
  return text as LogLevel;
}
