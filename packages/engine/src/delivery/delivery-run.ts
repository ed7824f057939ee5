import type { RunAttempt } from "@svc/store";

// What the stored attempts say about the current delivery run (pure). A run starts when a worker
// claims the message from `queued` (delivery_attempts is reset to 0 there) and lasts through its
// retries; `delivery_attempts` counts the attempt rows written since, so the run's rows are the
// newest `delivery_attempts` rows. The rows of one channel try (every enabled address of the
// channel, sent at once) share the try's `at`.

/** An attempt row as the run reads it back (packages/store: currentRunAttempts). */
export type StoredAttempt = RunAttempt;

interface ChannelTry {
  channel: string;
  at: Date;
  attempts: StoredAttempt[];
}

export type TryOutcome = "sent" | "retry" | "permanent";

export function tryOutcome(attempts: readonly Pick<StoredAttempt, "ok" | "retryable">[]): TryOutcome {
  if (attempts.some((a) => a.ok)) return "sent";
  return attempts.some((a) => a.retryable) ? "retry" : "permanent";
}

/** One entry per channel for `status_reason` and `gave up:`: the distinct errors of its addresses. */
export function channelError(attempts: readonly Pick<StoredAttempt, "error">[]): string {
  return [...new Set(attempts.map((a) => a.error ?? "failed"))].join(", ");
}

export interface RunState {
  /** Channels that failed permanently in this run, in the order they failed, with their error. */
  failedChannels: Map<string, string>;
  /** Channel tries of this run that ended in a retry. */
  retries: number;
  /** When the run's first attempt was made (null before any). */
  firstAttemptAt: Date | null;
}

export function runStateOf(runAttempts: readonly StoredAttempt[]): RunState {
  const tries = new Map<string, ChannelTry>();
  for (const attempt of [...runAttempts].sort((a, b) => a.at.getTime() - b.at.getTime())) {
    const key = `${attempt.at.getTime()}|${attempt.channel}`;
    const entry = tries.get(key) ?? { channel: attempt.channel, at: attempt.at, attempts: [] };
    entry.attempts.push(attempt);
    tries.set(key, entry);
  }
  const failedChannels = new Map<string, string>();
  let retries = 0;
  for (const channelTry of tries.values()) {
    const outcome = tryOutcome(channelTry.attempts);
    if (outcome === "retry") retries += 1;
    if (outcome === "permanent") failedChannels.set(channelTry.channel, channelError(channelTry.attempts));
  }
  const first = runAttempts.reduce<Date | null>((min, a) => (min === null || a.at < min ? a.at : min), null);
  return { failedChannels, retries, firstAttemptAt: first };
}

export interface RetryPlan {
  /** `retry` at `at`, or give up (attempts or deferral used up). */
  kind: "retry" | "give_up";
  at: Date;
}

export interface RetryInput {
  now: Date;
  /** Retries of this run including the one being decided (1 after the first failed try). */
  retries: number;
  firstAttemptAt: Date;
  retryAfterMs: number | undefined;
  baseMs: number;
  maxAttempts: number;
  maxDeferSeconds: number;
  /** In [0, 1). */
  random: number;
  /** Growth of the wait per try; default 2. */
  factor?: number;
  /** The most jitter takes off a wait (a fraction); default 0.5. */
  jitter?: number;
  /** No wait longer than this, Retry-After included; default none. */
  maxWaitMs?: number;
}

/**
 * Exponential backoff with jitter (by default half to all of base·2^(n-1), like the queue's own),
 * never sooner than the provider's Retry-After (nor later than `maxWaitMs`). Gives up once
 * `maxAttempts` tries were made or the next try would land more than `maxDeferSeconds` after the
 * run's first attempt.
 */
export function planRetry(input: RetryInput): RetryPlan {
  const exponential = input.baseMs * (input.factor ?? 2) ** (input.retries - 1);
  const jittered = exponential * (1 - (input.jitter ?? 0.5) * input.random);
  const delay = Math.min(
    Math.max(jittered, input.retryAfterMs ?? 0),
    input.maxWaitMs ?? Number.POSITIVE_INFINITY,
  );
  const at = new Date(input.now.getTime() + Math.round(delay));
  const deferredMs = at.getTime() - input.firstAttemptAt.getTime();
  const exhausted = input.retries + 1 > input.maxAttempts || deferredMs > input.maxDeferSeconds * 1000;
  return { kind: exhausted ? "give_up" : "retry", at };
}
