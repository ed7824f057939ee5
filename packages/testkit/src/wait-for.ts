import { setTimeout as sleep } from "node:timers/promises";

export interface WaitForOptions {
  /** Default 5000 ms. */
  timeoutMs?: number;
  /** Default 25 ms. */
  intervalMs?: number;
  /** Named in the timeout error. */
  what?: string;
}

type NotYet = false | null | undefined;

/**
 * Polls `fn` until it returns something other than undefined, null or false, and resolves with it.
 * A throw counts as "not yet", so assertions work: `waitFor(() => { expect(x).toBe(1); return true; })`.
 * On timeout it rejects naming `what`, with the last error as `cause`.
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<Exclude<T, NotYet>> {
  const { timeoutMs = 5000, intervalMs = 25, what = "condition" } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value !== undefined && value !== null && value !== false) return value as Exclude<T, NotYet>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : "";
      throw new Error(`waitFor: ${what} not met within ${timeoutMs} ms${reason}`, { cause: lastError });
    }
    await sleep(intervalMs);
  }
}
