import { planRetry } from "../delivery/delivery-run";

// When a webhook delivery is tried again (docs/webhooks.md "Retries"): exponential from 10 s by a
// factor of 4.3, so `webhooks.max_attempts` 8 spans about a day (10 s, 43 s, 3 min, 13 min, 57 min,
// 4.1 h, 17.6 h), each wait jittered down by up to a fifth, never shorter than the receiver's
// `Retry-After`. The schedule lives on the row, not in BullMQ's retry counter, so the sweep that
// recovers lost jobs knows how many tries were made.

const WEBHOOK_FIRST_RETRY_MS = 10_000;
const WEBHOOK_RETRY_FACTOR = 4.3;
/** The most a `Retry-After` can push a try back. */
const WEBHOOK_MAX_WAIT_MS = 24 * 3_600_000;
/** While an endpoint fails, it is probed at most this rarely (docs/webhooks.md "Isolation"). */
const WEBHOOK_MAX_BLOCK_MS = 3_600_000;

export interface WebhookRetryInput {
  now: Date;
  /** Tries made so far, the failed one included (1 after the first). */
  attempts: number;
  maxAttempts: number;
  retryAfterMs?: number;
  /** In [0, 1): 0 waits the full delay. */
  random: number;
  /** Scales the schedule (tests use a few milliseconds); default WEBHOOK_FIRST_RETRY_MS. */
  firstRetryMs?: number;
}

/** The next try's time, or null when the failed try was the last one allowed. */
export function nextWebhookTry(input: WebhookRetryInput): Date | null {
  const plan = planRetry({
    now: input.now,
    retries: input.attempts,
    firstAttemptAt: input.now,
    retryAfterMs: input.retryAfterMs,
    baseMs: input.firstRetryMs ?? WEBHOOK_FIRST_RETRY_MS,
    maxAttempts: input.maxAttempts,
    maxDeferSeconds: Number.POSITIVE_INFINITY,
    random: input.random,
    factor: WEBHOOK_RETRY_FACTOR,
    jitter: 0.2,
    maxWaitMs: WEBHOOK_MAX_WAIT_MS,
  });
  return plan.kind === "retry" ? plan.at : null;
}

/** Milliseconds from the first try to each try, without jitter: what docs/webhooks.md lists. */
export function nominalWebhookSchedule(maxAttempts: number): number[] {
  const offsets = [0];
  for (let attempts = 1; ; attempts += 1) {
    const at = nextWebhookTry({ now: new Date(offsets.at(-1)!), attempts, maxAttempts, random: 0 });
    if (at === null) return offsets;
    offsets.push(at.getTime());
  }
}

/**
 * Until when a failing endpoint gets no try but its probe: a quarter of how long it has failed,
 * between the first retry's wait and an hour, and never before its `Retry-After`.
 */
export function webhookEndpointBlock(input: {
  now: Date;
  failingSince: Date;
  retryAfterMs?: number;
  firstRetryMs?: number;
}): Date {
  const failingFor = input.now.getTime() - input.failingSince.getTime();
  const floor = input.firstRetryMs ?? WEBHOOK_FIRST_RETRY_MS;
  const block = Math.min(Math.max(failingFor / 4, floor), WEBHOOK_MAX_BLOCK_MS);
  const wait = Math.min(Math.max(block, input.retryAfterMs ?? 0), WEBHOOK_MAX_WAIT_MS);
  return new Date(input.now.getTime() + Math.round(wait));
}

/**
 * The job of the try due at `dueAt`: one id per scheduled try, so re-adding it while it waits is a
 * no-op. The sweep adds its own (`sweep: true`); a duplicate finds the row claimed or done.
 */
export function webhookTryJobId(deliveryId: string, dueAt: Date, options: { sweep?: boolean } = {}): string {
  return `${deliveryId}-${dueAt.getTime()}${options.sweep ? "-sweep" : ""}`;
}
