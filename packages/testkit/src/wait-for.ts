/**
 * Polls `fn` until it answers (anything but undefined, null or false) or `timeoutMs` passed, on the
 * monotonic clock. A thrown error counts as "not yet"; the last one is quoted when time runs out.
 */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 20_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== null && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (performance.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}${last ? `: ${last instanceof Error ? last.message : JSON.stringify(last)}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
