import type { SvcConfig } from "@svc/config";
import { postSignedJson, type SignedPostResult } from "@svc/providers";
import type { JobHandler, Queues } from "@svc/queue";
import {
  abandonWebhookDelivery,
  claimWebhookDeliveries,
  findClaimedWebhookDeliveries,
  findWebhookEndpointsByIds,
  markWebhookDeliveriesSucceeded,
  deferWebhookDelivery,
  disableWebhookEndpoint,
  findWebhookDelivery,
  recordWebhookDeliveryFailure,
  recordWebhookEndpointFailure,
  recordWebhookEndpointSuccess,
  takeWebhookEndpointProbe,
  type RootDatabase,
  type WebhookDeliveryClaim,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from "@svc/store";
import type { Dispatcher } from "undici";
import { storableError } from "../delivery/send-to-channel";
import { recordWebhookEndpointDisabled, recordWebhookTry } from "../metrics/record-metrics";
import { signingSecrets } from "./webhook-endpoints";
import { nextWebhookTry, webhookEndpointBlock, webhookTryJobId } from "./webhook-retry";

// The `send-webhook` job (docs/webhooks.md "Retries", "Isolation"): one try of one delivery. Claim
// the row, POST its frozen body signed with the endpoint's secret(s), record the outcome on the
// row and on the endpoint, schedule the next try. At least once: a worker that dies between the
// POST and the write leaves a claimed row that the requeue-webhooks sweep hands to another try,
// with the same body and Idempotency-Key. A receiver that fails holds up only its own endpoint:
// while it fails, one try at a time probes it and its other deliveries wait, untried.

/** A claim outlives the POST's timeout by at least this much (or the timeout again), for the outcome's write. */
const LEASE_MARGIN_MS = 5_000;
/** Tries of one endpoint at once in one process; more wait a moment (docs/webhooks.md "Isolation"). */
export const WEBHOOK_PER_ENDPOINT_IN_FLIGHT = 10;

export interface WebhookLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

export interface SendWebhookDeps {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "webhooks" | "secrets">;
  queues: Pick<Queues, "enqueue">;
  logger: WebhookLogger;
  now: () => Date;
  /** The guarded dispatcher (refuses internal addresses unless webhooks.allow_private_urls). */
  dispatcher: Dispatcher;
  /** Default webhooks.timeout_seconds. */
  timeoutMs?: number;
  /** Scales the retry schedule (tests: a few milliseconds). */
  firstRetryMs?: number;
  random?: () => number;
  perEndpointInFlight?: number;
}

export type SendWebhookOutcome =
  | { status: "succeeded"; attempts: number; statusCode: number | null }
  | { status: "retry"; attempts: number; at: Date; error: string }
  | { status: "failed"; attempts: number; error: string }
  | { status: "deferred"; at: Date }
  | { status: "skipped"; reason: string };

/** The bytes POSTed, frozen on the delivery row: the body with its fields in the documented order. */
export function webhookBodyBytes(body: {
  id: string;
  type: string;
  created_at: string;
  data: unknown;
}): string {
  return JSON.stringify({ id: body.id, type: body.type, created_at: body.created_at, data: body.data });
}

/**
 * The tries of one process to each endpoint: at most `limit` at once, the others wait their turn
 * (a slow receiver cannot take every slot of the process; docs/webhooks.md "Isolation").
 */
export class EndpointSlots {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  private readonly blocks = new Map<string, number>();
  constructor(readonly limit: number) {}

  /** A try failed as the receiver's fault: the tries waiting here hold back until then. */
  block(endpointId: string, until: Date): void {
    this.blocks.set(endpointId, until.getTime());
  }

  unblock(endpointId: string): void {
    this.blocks.delete(endpointId);
  }

  /** Until when tries to the endpoint hold back, or null. */
  blockedUntil(endpointId: string, now: Date): Date | null {
    const until = this.blocks.get(endpointId);
    return until !== undefined && until > now.getTime() ? new Date(until) : null;
  }

  async acquire(endpointId: string): Promise<void> {
    const active = this.active.get(endpointId) ?? 0;
    if (active < this.limit) {
      this.active.set(endpointId, active + 1);
      return;
    }
    await new Promise<void>((resolve) =>
      this.waiting.set(endpointId, [...(this.waiting.get(endpointId) ?? []), resolve]),
    );
  }

  release(endpointId: string): void {
    const next = this.waiting.get(endpointId)?.shift();
    if (next) {
      next(); // the slot passes on as it is
      return;
    }
    this.waiting.delete(endpointId);
    const active = (this.active.get(endpointId) ?? 1) - 1;
    if (active <= 0) this.active.delete(endpointId);
    else this.active.set(endpointId, active);
  }
}

/** How long a try of `count` deliveries holds them: their tries in lanes of `limit`, plus the writes. */
export function webhookLeaseMs(count: number, limit: number, timeoutMs: number): number {
  return timeoutMs * Math.ceil(count / limit) + Math.max(LEASE_MARGIN_MS, timeoutMs);
}

export function sendWebhookJob(deps: SendWebhookDeps, slots?: EndpointSlots): JobHandler<"send-webhook"> {
  const shared = slots ?? new EndpointSlots(deps.perEndpointInFlight ?? WEBHOOK_PER_ENDPOINT_IN_FLIGHT);
  return ({ deliveryId }) => sendWebhook(deps, deliveryId, shared);
}

/** The first tries of one fan-out's deliveries: claimed, read and recorded together. */
export function sendWebhooksJob(deps: SendWebhookDeps, slots?: EndpointSlots): JobHandler<"send-webhooks"> {
  const shared = slots ?? new EndpointSlots(deps.perEndpointInFlight ?? WEBHOOK_PER_ENDPOINT_IN_FLIGHT);
  return ({ deliveryIds, claimedUntil }) =>
    sendWebhooks(deps, deliveryIds, shared, claimedUntil === undefined ? undefined : new Date(claimedUntil));
}

/** One try of one delivery. */
export async function sendWebhook(
  deps: SendWebhookDeps,
  deliveryId: string,
  slots?: EndpointSlots,
): Promise<SendWebhookOutcome> {
  const outcomes = await sendWebhooks(deps, [deliveryId], slots);
  const outcome = outcomes.get(deliveryId)!;
  if (outcome.status === "skipped" && outcome.reason === "not claimed")
    return { status: "skipped", reason: await whyNotClaimed(deps.prisma, deliveryId) };
  return outcome;
}

/**
 * One try of each due delivery among `deliveryIds`: one claim, one read of their endpoints, the
 * POSTs (per endpoint at most `perEndpointInFlight` at once, one probe while it fails), and one
 * write per status code for the successes; failures are written one by one (they are rare).
 */
export async function sendWebhooks(
  deps: SendWebhookDeps,
  deliveryIds: readonly string[],
  slots: EndpointSlots = new EndpointSlots(deps.perEndpointInFlight ?? WEBHOOK_PER_ENDPOINT_IN_FLIGHT),
  /** The fan-out wrote them claimed until then for this job: read, not claimed again. */
  claimedUntil?: Date,
): Promise<Map<string, SendWebhookOutcome>> {
  const outcomes = new Map<string, SendWebhookOutcome>(
    deliveryIds.map((id) => [id, { status: "skipped", reason: "not claimed" }]),
  );
  const timeoutMs = deps.timeoutMs ?? deps.config.webhooks.timeout_seconds * 1000;
  const limit = slots.limit;
  const now = deps.now();
  // Long enough for the batch's tries to one endpoint in lanes of `limit`, plus the outcome writes.
  const lease =
    claimedUntil ?? new Date(now.getTime() + webhookLeaseMs(deliveryIds.length, limit, timeoutMs));
  const rows =
    claimedUntil === undefined
      ? await claimWebhookDeliveries(deps.prisma, deliveryIds, now, lease)
      : await findClaimedWebhookDeliveries(deps.prisma, deliveryIds, claimedUntil);
  if (rows.length === 0) return outcomes;
  const endpoints = new Map(
    (await findWebhookEndpointsByIds(deps.prisma, [...new Set(rows.map((row) => row.endpoint_id))])).map(
      (endpoint) => [endpoint.id, endpoint],
    ),
  );
  const byEndpoint = new Map<string, WebhookDeliveryRow[]>();
  for (const row of rows) byEndpoint.set(row.endpoint_id, [...(byEndpoint.get(row.endpoint_id) ?? []), row]);
  const succeeded: { row: WebhookDeliveryRow; statusCode: number | null; endpoint: WebhookEndpointRow }[] =
    [];
  const claimOf = (row: WebhookDeliveryRow): WebhookDeliveryClaim => ({
    id: row.id,
    attempts: row.attempts,
    leaseUntil: lease,
  });

  const defer = async (row: WebhookDeliveryRow, endpoint: WebhookEndpointRow, base: number) => {
    const at = new Date(base + Math.round((deps.random ?? Math.random)() * 1_000));
    if (!(await deferWebhookDelivery(deps.prisma, claimOf(row), at))) {
      outcomes.set(row.id, { status: "skipped", reason: "claim lost" });
      return;
    }
    recordWebhookTry(endpoint.id, "deferred");
    await enqueueWebhookTry(deps, row.id, at);
    outcomes.set(row.id, { status: "deferred", at });
  };

  await Promise.all(
    [...byEndpoint].map(async ([endpointId, group]) => {
      const endpoint = endpoints.get(endpointId);
      if (!endpoint) {
        for (const row of group) outcomes.set(row.id, { status: "skipped", reason: "endpoint deleted" });
        return;
      }
      if (!endpoint.enabled) {
        for (const row of group) {
          await abandonWebhookDelivery(deps.prisma, claimOf(row), "not sent: endpoint disabled");
          recordWebhookTry(endpoint.id, "failed");
          outcomes.set(row.id, {
            status: "failed",
            attempts: row.attempts,
            error: "not sent: endpoint disabled",
          });
        }
        return;
      }
      let queue = group;
      // A failing receiver gets one probe at a time; the others wait for the probe's verdict.
      if (endpoint.failing_since !== null) {
        const probe = await takeWebhookEndpointProbe(deps.prisma, endpoint.id, now, lease);
        const blockedUntil = Math.max(endpoint.blocked_until?.getTime() ?? 0, now.getTime() + 1_000);
        const rest = probe ? group.slice(1) : group;
        for (const row of rest) await defer(row, endpoint, blockedUntil);
        if (!probe) return;
        queue = group.slice(0, 1);
      }
      // Derived once per batch and endpoint (an HMAC each), not per try.
      const secrets = signingSecrets(endpoint, now, deps.config);
      const lane = async () => {
        for (let row = queue.shift(); row !== undefined; row = queue.shift()) {
          const result = await post(deps, endpoint, secrets, row, timeoutMs, slots);
          // The receiver failed meanwhile: this try waits for the block like any other.
          if ("blockedUntil" in result) {
            await defer(row, endpoint, Math.max(result.blockedUntil.getTime(), deps.now().getTime() + 1_000));
            continue;
          }
          if (result.ok) {
            slots.unblock(endpoint.id);
            succeeded.push({ row, statusCode: result.statusCode ?? null, endpoint });
            continue;
          }
          outcomes.set(row.id, await recordFailure(deps, endpoint, row, claimOf(row), result, slots));
        }
      };
      await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, lane));
    }),
  );

  const after = deps.now();
  const byCode = new Map<number | null, typeof succeeded>();
  for (const success of succeeded)
    byCode.set(success.statusCode, [...(byCode.get(success.statusCode) ?? []), success]);
  for (const [statusCode, group] of byCode)
    await markWebhookDeliveriesSucceeded(
      deps.prisma,
      group.map((s) => s.row.id),
      lease,
      statusCode,
      after,
    );
  const recovered = new Set(
    succeeded
      .filter((s) => s.endpoint.failing_since !== null || s.endpoint.blocked_until !== null)
      .map((s) => s.endpoint.id),
  );
  for (const endpointId of recovered) await recordWebhookEndpointSuccess(deps.prisma, endpointId);
  for (const { row, statusCode, endpoint } of succeeded) {
    recordWebhookTry(endpoint.id, "succeeded");
    outcomes.set(row.id, { status: "succeeded", attempts: row.attempts + 1, statusCode });
  }
  return outcomes;
}

async function post(
  deps: SendWebhookDeps,
  endpoint: WebhookEndpointRow,
  secrets: readonly string[],
  row: WebhookDeliveryRow,
  timeoutMs: number,
  slots: EndpointSlots,
): Promise<SignedPostResult | { blockedUntil: Date }> {
  await slots.acquire(endpoint.id);
  try {
    const blockedUntil = slots.blockedUntil(endpoint.id, deps.now());
    if (blockedUntil) return { blockedUntil };
    return await postSignedJson({
      url: endpoint.url,
      secret: secrets,
      body: row.body,
      idempotencyKey: row.event_id,
      timeoutMs,
      now: deps.now,
      label: "webhook",
      dispatcher: deps.dispatcher,
    });
  } finally {
    slots.release(endpoint.id);
  }
}

/** A failed try: the delivery's next try (or `failed`), the endpoint's health, 410 and disable_after. */
async function recordFailure(
  deps: SendWebhookDeps,
  endpoint: WebhookEndpointRow,
  row: WebhookDeliveryRow,
  claim: WebhookDeliveryClaim,
  result: Extract<SignedPostResult, { ok: false }>,
  slots: EndpointSlots,
): Promise<SendWebhookOutcome> {
  const attempts = row.attempts + 1;
  const statusCode = result.statusCode ?? null;
  const meta = { delivery_id: row.id, endpoint_id: endpoint.id, event_id: row.event_id, attempts };
  const error = storableError(result.error);
  const gone = statusCode === 410;
  const after = deps.now();
  const retryAfter = result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {};
  const scale = deps.firstRetryMs !== undefined ? { firstRetryMs: deps.firstRetryMs } : {};
  const retryAt =
    gone || !result.retryable
      ? null
      : nextWebhookTry({
          now: after,
          attempts,
          maxAttempts: deps.config.webhooks.max_attempts,
          random: (deps.random ?? Math.random)(),
          ...retryAfter,
          ...scale,
        });
  // The receiver's health first, then the delivery: whoever sees this try's delivery `failed` sees
  // its endpoint already disabled by a 410 or by disable_after, not a moment later. A retryable
  // failure blocks the endpoint but for one probe.
  const blockedUntil = result.retryable
    ? webhookEndpointBlock({
        now: after,
        failingSince: endpoint.failing_since ?? after,
        ...retryAfter,
        ...scale,
      })
    : null;
  if (blockedUntil) slots.block(endpoint.id, blockedUntil);
  const since = await recordWebhookEndpointFailure(deps.prisma, endpoint.id, after, blockedUntil);
  if (gone) await disableEndpoint(deps, endpoint.id, "gone", meta);
  else if (since !== null && after.getTime() - since.getTime() >= deps.config.webhooks.disable_after * 1000)
    await disableEndpoint(deps, endpoint.id, "failing", { ...meta, failing_since: since.toISOString() });
  const won = await recordWebhookDeliveryFailure(deps.prisma, claim, { error, statusCode, retryAt });
  if (!won) return { status: "skipped", reason: "claim lost after sending" };
  if (retryAt === null) {
    deps.logger.warn("webhook delivery failed for good", { ...meta, error, status_code: statusCode });
    recordWebhookTry(endpoint.id, "failed");
    return { status: "failed", attempts, error };
  }
  recordWebhookTry(endpoint.id, "retry");
  await enqueueWebhookTry(deps, row.id, retryAt);
  return { status: "retry", attempts, at: retryAt, error };
}

async function disableEndpoint(
  deps: SendWebhookDeps,
  endpointId: string,
  reason: "gone" | "failing",
  meta: Record<string, unknown>,
): Promise<void> {
  if (!(await disableWebhookEndpoint(deps.prisma, endpointId, reason, deps.now()))) return;
  recordWebhookEndpointDisabled(reason);
  deps.logger.error(
    reason === "gone"
      ? "webhook endpoint disabled: the receiver answered 410 Gone"
      : "webhook endpoint disabled: every try failed for webhooks.disable_after",
    { ...meta, reason },
  );
}

/** Adds the job of the try due at `at`; if Redis refuses, the requeue-webhooks sweep adds it. */
export async function enqueueWebhookTry(
  deps: Pick<SendWebhookDeps, "queues" | "logger">,
  deliveryId: string,
  at: Date,
): Promise<void> {
  try {
    await deps.queues.enqueue(
      "send-webhook",
      { deliveryId },
      { sendAt: at, jobId: webhookTryJobId(deliveryId, at) },
    );
  } catch (error) {
    deps.logger.warn("send-webhook not enqueued; the requeue-webhooks sweep will add it", {
      delivery_id: deliveryId,
      error: (error as Error).message,
    });
  }
}

async function whyNotClaimed(prisma: RootDatabase, deliveryId: string): Promise<string> {
  const row: WebhookDeliveryRow | null = await findWebhookDelivery(prisma, deliveryId);
  if (!row) return "not found";
  return row.status === "pending" ? "not due" : `already ${row.status}`;
}
