import { Prisma, type WebhookDeliveryStatus } from "../../generated/prisma/client";
import { pageArgs, type PageWindow } from "../paging";
import { ERASURE_WEBHOOK_TYPE } from "./webhook-privacy";
import { prismaOf, type Database } from "../../transaction";

// Webhook deliveries (docs/webhooks.md "Deliveries"): one row per event and endpoint, written by
// the outbox fan-out with its body frozen. The row is the truth: `pending` with `next_attempt_at`
// is what is due; a try claims it by moving `next_attempt_at` to the end of its lease and records
// its outcome only while it still holds that claim (as the decision callbacks do).
// The statements of every event's path (insert, claim, read, success) are written as SQL over
// arrays: one plan whatever the batch's size, and no query building per call (docs/webhooks.md
// "What a webhook costs").

export type WebhookDeliveryRow = Prisma.WebhookDeliveryModel;
export type { WebhookDeliveryStatus };

export interface NewWebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  type: string;
  /** The exact bytes every try POSTs (docs/webhooks.md "The body"). */
  body: string;
  /** The person the event is about, or null (docs/webhooks.md "Personal data"). */
  recipientId?: string | null;
  now: Date;
  /** Written already claimed until then, for the job the writer enqueues (default: due now). */
  claimedUntil?: Date;
}

/**
 * Writes deliveries under the fan-out's transaction; one per event id (a repeat is skipped). A row
 * about a person is written only while the person exists, and holds their row (`FOR KEY SHARE`)
 * until the fan-out commits: an erasure running at the same time either deletes the person first
 * (the row is not written) or waits and then deletes it (docs/webhooks.md "Personal data").
 * `recipient.erased` is written for a person who is gone by design.
 */
export async function insertWebhookDeliveries(
  db: Database,
  deliveries: readonly NewWebhookDelivery[],
): Promise<number> {
  if (deliveries.length === 0) return 0;
  return prismaOf(db).$executeRaw(Prisma.sql`
    INSERT INTO webhook_deliveries (id, endpoint_id, event_id, type, body, recipient_id, next_attempt_at, created_at)
    SELECT d.id, d.endpoint_id, d.event_id, d.type, d.body, d.recipient_id, d.next_attempt_at, d.created_at
      FROM unnest(${deliveries.map((d) => d.id)}::text[], ${deliveries.map((d) => d.endpointId)}::text[],
                  ${deliveries.map((d) => d.eventId)}::text[], ${deliveries.map((d) => d.type)}::text[],
                  ${deliveries.map((d) => d.body)}::text[], ${deliveries.map((d) => d.recipientId ?? null)}::text[],
                  ${deliveries.map((d) => d.claimedUntil ?? d.now)}::timestamptz[], ${deliveries.map((d) => d.now)}::timestamptz[])
        AS d(id, endpoint_id, event_id, type, body, recipient_id, next_attempt_at, created_at)
     WHERE d.recipient_id IS NULL OR d.type = ${ERASURE_WEBHOOK_TYPE}
        OR EXISTS (SELECT 1 FROM recipients r WHERE r.id = d.recipient_id FOR KEY SHARE)
    ON CONFLICT DO NOTHING`);
}

/** Every column, as the generated model names and types them. */
const DELIVERY_COLUMNS = Prisma.sql`id, endpoint_id, event_id, type, body, status::text AS status, attempts,
  last_status_code, last_error, next_attempt_at, created_at, delivered_at, recipient_id`;

export function findWebhookDelivery(db: Database, id: string): Promise<WebhookDeliveryRow | null> {
  return prismaOf(db).webhookDelivery.findUnique({ where: { id } });
}

/** A due `pending` delivery claimed for one try until `leaseUntil`, or null. */
export async function claimWebhookDelivery(
  db: Database,
  id: string,
  now: Date,
  leaseUntil: Date,
): Promise<WebhookDeliveryRow | null> {
  const rows = await prismaOf(db).webhookDelivery.updateManyAndReturn({
    where: { id, status: "pending", next_attempt_at: { lte: now } },
    data: { next_attempt_at: leaseUntil },
  });
  return rows[0] ?? null;
}

/** Due `pending` deliveries among `ids`, claimed together until `leaseUntil` (one statement). */
export function claimWebhookDeliveries(
  db: Database,
  ids: readonly string[],
  now: Date,
  leaseUntil: Date,
): Promise<WebhookDeliveryRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return prismaOf(db).$queryRaw<WebhookDeliveryRow[]>(Prisma.sql`
    UPDATE webhook_deliveries SET next_attempt_at = ${leaseUntil}
     WHERE id = ANY(${[...ids]}::text[]) AND status = 'pending' AND next_attempt_at <= ${now}
    RETURNING ${DELIVERY_COLUMNS}`);
}

/** The deliveries among `ids` still pending under the claim that ends at `leaseUntil`. */
export function findClaimedWebhookDeliveries(
  db: Database,
  ids: readonly string[],
  leaseUntil: Date,
): Promise<WebhookDeliveryRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return prismaOf(db).$queryRaw<WebhookDeliveryRow[]>(Prisma.sql`
    SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
     WHERE id = ANY(${[...ids]}::text[]) AND status = 'pending' AND next_attempt_at = ${leaseUntil}`);
}

/**
 * Tries of one claim (the same `leaseUntil`) answered 2xx with `statusCode`, in one statement.
 * Returns how many were still held.
 */
export async function markWebhookDeliveriesSucceeded(
  db: Database,
  ids: readonly string[],
  leaseUntil: Date,
  statusCode: number | null,
  now: Date,
): Promise<number> {
  if (ids.length === 0) return 0;
  return prismaOf(db).$executeRaw(Prisma.sql`
    UPDATE webhook_deliveries
       SET status = 'succeeded', attempts = attempts + 1, last_status_code = ${statusCode}::int,
           delivered_at = ${now}, next_attempt_at = NULL
     WHERE id = ANY(${[...ids]}::text[]) AND status = 'pending' AND next_attempt_at = ${leaseUntil}`);
}

/** A claim as `claimWebhookDelivery` returned it. */
export interface WebhookDeliveryClaim {
  id: string;
  attempts: number;
  leaseUntil: Date;
}

function heldBy(claim: WebhookDeliveryClaim): Prisma.WebhookDeliveryWhereInput {
  return { id: claim.id, status: "pending", attempts: claim.attempts, next_attempt_at: claim.leaseUntil };
}

/** The try was answered 2xx. False when the claim was lost. */
export async function markWebhookDeliverySucceeded(
  db: Database,
  claim: WebhookDeliveryClaim,
  statusCode: number | null,
  now: Date,
): Promise<boolean> {
  const { count } = await prismaOf(db).webhookDelivery.updateMany({
    where: heldBy(claim),
    data: {
      status: "succeeded",
      attempts: { increment: 1 },
      last_status_code: statusCode,
      delivered_at: now,
      next_attempt_at: null,
    },
  });
  return count === 1;
}

/** The try failed: the next try at `retryAt`, or `failed` when null. False when the claim was lost. */
export async function recordWebhookDeliveryFailure(
  db: Database,
  claim: WebhookDeliveryClaim,
  failure: { error: string; statusCode: number | null; retryAt: Date | null },
): Promise<boolean> {
  const { count } = await prismaOf(db).webhookDelivery.updateMany({
    where: heldBy(claim),
    data: {
      attempts: { increment: 1 },
      last_error: failure.error,
      last_status_code: failure.statusCode,
      ...(failure.retryAt === null
        ? { status: "failed", next_attempt_at: null }
        : { next_attempt_at: failure.retryAt }),
    },
  });
  return count === 1;
}

/** Gives a claim back untried, due at `at` (the endpoint is backing off). */
export async function deferWebhookDelivery(
  db: Database,
  claim: WebhookDeliveryClaim,
  at: Date,
): Promise<boolean> {
  const { count } = await prismaOf(db).webhookDelivery.updateMany({
    where: heldBy(claim),
    data: { next_attempt_at: at },
  });
  return count === 1;
}

/** Ends a claimed delivery untried (its endpoint is disabled). */
export async function abandonWebhookDelivery(
  db: Database,
  claim: WebhookDeliveryClaim,
  error: string,
): Promise<boolean> {
  const { count } = await prismaOf(db).webhookDelivery.updateMany({
    where: heldBy(claim),
    data: { status: "failed", last_error: error, next_attempt_at: null },
  });
  return count === 1;
}

/** `pending` deliveries due before `dueBefore` (their job presumed lost), longest due first. */
export function findDueWebhookDeliveries(
  db: Database,
  dueBefore: Date,
  limit: number,
): Promise<{ id: string; next_attempt_at: Date | null }[]> {
  return prismaOf(db).webhookDelivery.findMany({
    where: { status: "pending", next_attempt_at: { lte: dueBefore } },
    orderBy: { next_attempt_at: "asc" },
    take: limit,
    select: { id: true, next_attempt_at: true },
  });
}

/** An operator's retry: `failed` → `pending`, no attempts, due now. Null unless it was `failed`. */
export async function reopenFailedWebhookDelivery(
  db: Database,
  endpointId: string,
  id: string,
  now: Date,
): Promise<WebhookDeliveryRow | null> {
  const rows = await prismaOf(db).webhookDelivery.updateManyAndReturn({
    where: { id, endpoint_id: endpointId, status: "failed" },
    data: { status: "pending", attempts: 0, next_attempt_at: now },
  });
  return rows[0] ?? null;
}

/** One endpoint's deliveries, newest first, optionally of one status. */
export function findWebhookDeliveryPage(
  db: Database,
  filter: { endpointId: string; status?: WebhookDeliveryStatus },
  window: PageWindow,
): Promise<WebhookDeliveryRow[]> {
  const q = pageArgs(window, "id");
  const filters: Prisma.WebhookDeliveryWhereInput[] = [
    q.where as Prisma.WebhookDeliveryWhereInput,
    { endpoint_id: filter.endpointId },
  ];
  if (filter.status !== undefined) filters.push({ status: filter.status });
  return prismaOf(db).webhookDelivery.findMany({ where: { AND: filters }, orderBy: q.orderBy, take: q.take });
}
