/**
 * BGP passwords never leave the FRR config file (issue 41): every text the agent shows of FRR's
 * configuration or of FRR's answers (apply errors, drift, diffs, logs, status messages, the host
 * preview) goes through `redactPasswords` first, which prints `password <redacted>` instead of the
 * value. FRR itself prints the password in the same `password WORD` form (running config, refused
 * lines), so one rule covers the file, FRR's output and frr-reload.py's.
 */

/** `password` followed by its value (up to the end of the token). */
const PASSWORD_TOKEN = /(\bpassword\s+)(?!<redacted>)\S+/g;

export const REDACTED = '<redacted>';

export function redactPasswords(text: string): string {
  return text.includes('password') ? text.replace(PASSWORD_TOKEN, `$1${REDACTED}`) : text;
}
