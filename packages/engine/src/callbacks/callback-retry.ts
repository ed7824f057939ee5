import { JOBS } from "@svc/queue";
import { planRetry } from "../delivery/delivery-run";

// When a decision callback is tried (docs/approvals.md "Retries"). The schedule is kept here, on
// the row (`attempts`, `next_attempt_at`), not in BullMQ's retry counter: that counter lives in
// Redis, and the sweep that recovers lost jobs must know how many tries were already made.

/** At most this many tries, then the callback is `failed` (an operator may retry it). */
export const CALLBACK_MAX_ATTEMPTS = JOBS["send-callback"].attempts ?? 10;
/** Wait after the first failed try; it doubles after each further one (half to all of it, jittered). */
export const CALLBACK_RETRY_BASE_MS = JOBS["send-callback"].backoffMs;

export interface CallbackRetryInput {
  now: Date;
  /** Tries made so far, the failed one included (1 after the first). */
  attempts: number;
  baseMs: number;
  /** In [0, 1): 0 waits the full delay, values near 1 about half of it. */
  random: number;
}

/** The next try's time, or null when the failed try was the last one allowed. */
export function nextCallbackTry(input: CallbackRetryInput): Date | null {
  const plan = planRetry({
    now: input.now,
    retries: input.attempts,
    firstAttemptAt: input.now,
    retryAfterMs: undefined,
    baseMs: input.baseMs,
    maxAttempts: CALLBACK_MAX_ATTEMPTS,
    maxDeferSeconds: Number.POSITIVE_INFINITY,
    random: input.random,
  });
  return plan.kind === "retry" ? plan.at : null;
}

/**
 * Milliseconds from the first try to each try, without jitter (the longest waits): what
 * docs/approvals.md lists. Each wait is in fact between half and all of its nominal length.
 */
export function nominalCallbackSchedule(baseMs = CALLBACK_RETRY_BASE_MS): number[] {
  const offsets = [0];
  for (let attempts = 1; ; attempts += 1) {
    const at = nextCallbackTry({ now: new Date(offsets.at(-1)!), attempts, baseMs, random: 0 });
    if (at === null) return offsets;
    offsets.push(at.getTime());
  }
}

/**
 * The job of the try due at `dueAt`: one id per scheduled try, so re-adding it (a retry write
 * repeated, the sweep) while it waits is a no-op. The sweep adds its own (`sweep: true`), which a
 * job that already ran cannot swallow; a duplicate finds the row claimed or done and does nothing.
 */
export function callbackTryJobId(callbackId: string, dueAt: Date, options: { sweep?: boolean } = {}): string {
  return `${callbackId}-${dueAt.getTime()}${options.sweep ? "-sweep" : ""}`;
}
