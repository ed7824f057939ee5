import { randomBytes } from "node:crypto";
import { deleteKeysStartingWith, waitFor as poll } from "@svc/testkit";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** A key prefix of this test file's own, so files running in parallel never share queues. */
export function scratchPrefix(label: string): string {
  return `svc-test-${label}-${randomBytes(4).toString("hex")}`;
}

/** Deletes every key under the prefix (BullMQ keys are `<prefix>:<queue>:…`). */
export function dropPrefix(prefix: string): Promise<number> {
  return deleteKeysStartingWith(REDIS_URL, `${prefix}:`);
}

/** Polls until `probe` returns something other than undefined or false (testkit's waitFor). */
export function waitFor<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  return poll(probe, { timeoutMs, intervalMs: 50 }) as Promise<T>;
}
