import { Prisma } from "../../generated/prisma/client";
import { pageArgs, type PageWindow } from "../paging";
import { prismaOf, type Database } from "../../transaction";

// Webhook endpoints (docs/webhooks.md "Endpoints"): where backends hear about svc's changes. The
// endpoint also carries the state of its receiver: `failing_since` (an unbroken run of failed
// tries, for webhooks.disable_after) and `blocked_until` (while failing, one probe at a time).

export type WebhookEndpointRow = Prisma.WebhookEndpointModel;

export interface NewWebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  /** The salt the signing secret is derived from (the secret itself is never stored). */
  secretSalt: string;
  now: Date;
}

export async function insertWebhookEndpoint(
  db: Database,
  endpoint: NewWebhookEndpoint,
): Promise<WebhookEndpointRow> {
  return prismaOf(db).webhookEndpoint.create({
    data: {
      id: endpoint.id,
      url: endpoint.url,
      events: endpoint.events,
      description: endpoint.description,
      enabled: endpoint.enabled,
      secret_salt: endpoint.secretSalt,
      created_at: endpoint.now,
      updated_at: endpoint.now,
    },
  });
}

export function findWebhookEndpoint(db: Database, id: string): Promise<WebhookEndpointRow | null> {
  return prismaOf(db).webhookEndpoint.findUnique({ where: { id } });
}

/** The endpoints among `ids` (each send-webhooks job's first read; SQL over an array, as the deliveries' path). */
export function findWebhookEndpointsByIds(
  db: Database,
  ids: readonly string[],
): Promise<WebhookEndpointRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return prismaOf(db).$queryRaw<WebhookEndpointRow[]>(Prisma.sql`
    SELECT id, url, events, description, enabled, secret_salt, previous_secret_salt, previous_secret_until,
           disabled_reason, failing_since, blocked_until, created_at, updated_at
      FROM webhook_endpoints WHERE id = ANY(${[...ids]}::text[])`);
}

/** Newest first. */
export function findWebhookEndpointPage(db: Database, window: PageWindow): Promise<WebhookEndpointRow[]> {
  const q = pageArgs(window, "id");
  return prismaOf(db).webhookEndpoint.findMany({
    where: q.where as Prisma.WebhookEndpointWhereInput,
    orderBy: q.orderBy,
    take: q.take,
  });
}

/** What fan-out needs of every enabled endpoint (few rows: one per receiving backend). */
export function findEnabledWebhookEndpoints(db: Database): Promise<{ id: string; events: string[] }[]> {
  // Every relay batch with a webhook event reads this: plain SQL, no query building.
  return prismaOf(db).$queryRaw<{ id: string; events: string[] }[]>(
    Prisma.sql`SELECT id, events FROM webhook_endpoints WHERE enabled`,
  );
}

export interface WebhookEndpointPatch {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

/**
 * Changes what the patch names. Enabling clears what svc recorded about a failing receiver (the
 * operator says it is back). Null when there is no such endpoint.
 */
export async function updateWebhookEndpoint(
  db: Database,
  id: string,
  patch: WebhookEndpointPatch,
  now: Date,
): Promise<WebhookEndpointRow | null> {
  const rows = await prismaOf(db).webhookEndpoint.updateManyAndReturn({
    where: { id },
    data: {
      ...patch,
      ...(patch.enabled === true ? { disabled_reason: null, failing_since: null, blocked_until: null } : {}),
      ...(patch.enabled === false ? { disabled_reason: null } : {}),
      updated_at: now,
    },
  });
  return rows[0] ?? null;
}

/** Deletes the endpoint and its deliveries (pending ones are never sent). */
export async function deleteWebhookEndpoint(db: Database, id: string): Promise<boolean> {
  const { count } = await prismaOf(db).webhookEndpoint.deleteMany({ where: { id } });
  return count === 1;
}

/** A new secret salt; the current one's secret keeps signing beside it until `previousUntil`. */
export async function rotateWebhookSecret(
  db: Database,
  id: string,
  secretSalt: string,
  previousUntil: Date,
  now: Date,
): Promise<WebhookEndpointRow | null> {
  const rows = await prismaOf(db).$queryRaw<{ id: string }[]>`
    UPDATE webhook_endpoints
       SET previous_secret_salt = secret_salt, previous_secret_until = ${previousUntil},
           secret_salt = ${secretSalt}, updated_at = ${now}
     WHERE id = ${id}
    RETURNING id`;
  return rows.length === 0 ? null : findWebhookEndpoint(db, id);
}

/** svc disables an enabled endpoint (`gone`, `failing`). False when it was not enabled. */
export async function disableWebhookEndpoint(
  db: Database,
  id: string,
  reason: string,
  now: Date,
): Promise<boolean> {
  const { count } = await prismaOf(db).webhookEndpoint.updateMany({
    where: { id, enabled: true },
    data: { enabled: false, disabled_reason: reason, blocked_until: null, updated_at: now },
  });
  return count === 1;
}

/**
 * A try failed: the run of failures starts now unless it already had; no try before `blockedUntil`
 * (null: a failure that says nothing about the receiver's health). Returns when the run started.
 */
export async function recordWebhookEndpointFailure(
  db: Database,
  id: string,
  now: Date,
  blockedUntil: Date | null,
): Promise<Date | null> {
  const rows = await prismaOf(db).$queryRaw<{ failing_since: Date }[]>`
    UPDATE webhook_endpoints
       SET failing_since = COALESCE(failing_since, ${now}),
           blocked_until = ${blockedUntil}
     WHERE id = ${id}
    RETURNING failing_since`;
  return rows[0]?.failing_since ?? null;
}

/** A try succeeded: the receiver is healthy (a no-op write is skipped). */
export async function recordWebhookEndpointSuccess(db: Database, id: string): Promise<void> {
  await prismaOf(db).webhookEndpoint.updateMany({
    where: { id, OR: [{ failing_since: { not: null } }, { blocked_until: { not: null } }] },
    data: { failing_since: null, blocked_until: null },
  });
}

/**
 * While an endpoint fails, only one try at a time probes it: the probe holds `blocked_until` until
 * `leaseUntil`. False when another try holds it, or the endpoint's backoff has not run out.
 */
export async function takeWebhookEndpointProbe(
  db: Database,
  id: string,
  now: Date,
  leaseUntil: Date,
): Promise<boolean> {
  const { count } = await prismaOf(db).webhookEndpoint.updateMany({
    where: { id, OR: [{ blocked_until: null }, { blocked_until: { lte: now } }] },
    data: { blocked_until: leaseUntil },
  });
  return count === 1;
}
