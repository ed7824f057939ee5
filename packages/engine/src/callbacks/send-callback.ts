import { requireCallbackSecret, type SvcConfig } from "@svc/config";
import { recordCallback } from "../metrics/record-metrics";
import { postSignedJson, type SendResult } from "@svc/providers";
import type { JobHandler, Queues } from "@svc/queue";
import {
  claimCallbackDelivery,
  findCallbackDelivery,
  markCallbackDelivered,
  recordCallbackFailure,
  type CallbackClaim,
  type RootDatabase,
} from "@svc/store";
import { storableError } from "../delivery/send-to-channel";
import { CALLBACK_RETRY_BASE_MS, callbackTryJobId, nextCallbackTry } from "./callback-retry";
import type { DecisionCallbackBody } from "../shared/record-callback";

// The `send-callback` job (docs/approvals.md "Decision callbacks"): one try of one recorded
// callback. Claim the row, POST its body signed, record the outcome on the row, schedule the next
// try. At least once: a worker that dies between the POST and the write leaves a claimed row that
// the requeue-callbacks sweep hands to another try, with the same body and Idempotency-Key.

const CALLBACK_TIMEOUT_MS = 10_000;
/** A claim outlives the POST's timeout by this much, for the outcome's write. */
const LEASE_MARGIN_MS = 20_000;

interface CallbackLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

export interface SendCallbackDeps {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "approvals" | "secrets">;
  queues: Pick<Queues, "enqueue">;
  logger: CallbackLogger;
  now: () => Date;
  /** Wait after the first failed try (doubling, jittered); tests use a few milliseconds. */
  retryBaseMs?: number;
  timeoutMs?: number;
  /** How long a try holds its row; default the timeout plus 20 s. */
  leaseMs?: number;
  /** Jitter source in [0, 1). */
  random?: () => number;
}

export type SendCallbackOutcome =
  | { status: "delivered"; attempts: number }
  | { status: "retry"; attempts: number; at: Date; error: string }
  | { status: "failed"; attempts: number; error: string }
  | { status: "skipped"; reason: string };

// The documented field order (the row's JSON column keeps its own order); unknown fields follow.
const FIELD_ORDER: readonly (keyof DecisionCallbackBody)[] = [
  "type",
  "kind",
  "id",
  "status",
  "title",
  "agent",
  "decided_by",
  "comment",
  "decided_at",
  "metadata",
];

/** The bytes POSTed and signed: the stored body in the documented field order, every try the same. */
export function callbackBytes(body: unknown): string {
  const fields = body as Record<string, unknown>;
  const known = FIELD_ORDER.filter((key) => key in fields);
  const rest = Object.keys(fields).filter((key) => !(FIELD_ORDER as readonly string[]).includes(key));
  return JSON.stringify(Object.fromEntries([...known, ...rest].map((key) => [key, fields[key]])));
}

/** Builds the job's handler; a callback URL without SVC_CALLBACK_SECRET stops the start here. */
export function sendCallbackJob(deps: SendCallbackDeps): JobHandler<"send-callback"> {
  const secret = requireCallbackSecret(deps.config);
  return ({ callbackId }) => sendCallback(deps, secret, callbackId);
}

export async function sendCallback(
  deps: SendCallbackDeps,
  secret: string | null,
  callbackId: string,
): Promise<SendCallbackOutcome> {
  const timeoutMs = deps.timeoutMs ?? CALLBACK_TIMEOUT_MS;
  const now = deps.now();
  const lease = new Date(now.getTime() + (deps.leaseMs ?? timeoutMs + LEASE_MARGIN_MS));
  const row = await claimCallbackDelivery(deps.prisma, callbackId, now, lease);
  if (!row) return { status: "skipped", reason: await whyNotClaimed(deps.prisma, callbackId) };
  const claim: CallbackClaim = { id: row.id, attempts: row.attempts, leaseUntil: lease };

  const url = deps.config.approvals.callback_url;
  const result: SendResult =
    url === null || secret === null
      ? { ok: false, retryable: false, error: "not sent: approvals.callback_url is not set" }
      : await postSignedJson({
          url,
          secret,
          body: callbackBytes(row.body),
          idempotencyKey: row.id,
          timeoutMs,
          now: deps.now,
          label: "callback",
        });
  const attempts = row.attempts + 1;
  const meta = { callback_id: row.id, subject_id: row.subject_id, attempts };

  if (result.ok) {
    const won = await markCallbackDelivered(deps.prisma, claim, deps.now());
    if (!won) return { status: "skipped", reason: "claim lost after sending" };
    deps.logger.info("callback delivered", meta);
    recordCallback("delivered");
    return { status: "delivered", attempts };
  }

  // Every failure is tried again, a 4xx too (docs/approvals.md "Retries"): only a missing URL is not.
  const error = storableError(result.error);
  const retryAt =
    url === null
      ? null
      : nextCallbackTry({
          now: deps.now(),
          attempts,
          baseMs: deps.retryBaseMs ?? CALLBACK_RETRY_BASE_MS,
          random: (deps.random ?? Math.random)(),
        });
  const won = await recordCallbackFailure(deps.prisma, claim, error, retryAt);
  if (!won) return { status: "skipped", reason: "claim lost after sending" };
  if (retryAt === null) {
    deps.logger.error("callback failed for good", { ...meta, error });
    recordCallback("failed");
    return { status: "failed", attempts, error };
  }
  deps.logger.warn("callback will retry", { ...meta, error, retry_at: retryAt.toISOString() });
  recordCallback("retry");
  await enqueueTry(deps, row.id, retryAt);
  return { status: "retry", attempts, at: retryAt, error };
}

/** Adds the job of the try due at `at`; if Redis refuses, the requeue-callbacks sweep adds it. */
export async function enqueueTry(
  deps: Pick<SendCallbackDeps, "queues" | "logger">,
  callbackId: string,
  at: Date,
): Promise<void> {
  try {
    await deps.queues.enqueue(
      "send-callback",
      { callbackId },
      { sendAt: at, jobId: callbackTryJobId(callbackId, at) },
    );
  } catch (error) {
    deps.logger.warn("send-callback not enqueued; the requeue-callbacks sweep will add it", {
      callback_id: callbackId,
      error: (error as Error).message,
    });
  }
}

async function whyNotClaimed(prisma: RootDatabase, callbackId: string): Promise<string> {
  const row = await findCallbackDelivery(prisma, callbackId);
  if (!row) return "not found";
  // A pending row not due: another try holds it, or this job came before its time (the sweep
  // adds the try's job again once it is due).
  return row.status === "pending" ? "not due" : `already ${row.status}`;
}
