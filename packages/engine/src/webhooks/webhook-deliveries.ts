import { AppError, newId } from "@svc/core";
import type { Queues } from "@svc/queue";
import {
  findWebhookDeliveryPage,
  insertWebhookDeliveries,
  reopenFailedWebhookDelivery,
  findWebhookDelivery,
  type RootDatabase,
  type WebhookDeliveryRow,
  type WebhookDeliveryStatus,
} from "@svc/store";
import { pageWindow, toPage, type Page, type PageRequest } from "../shared/paging";
import type { WebhookBody } from "./fan-out-webhooks";
import { loadWebhookEndpoint, serializeWebhookEndpoint } from "./webhook-endpoints";
import { enqueueWebhookTry, webhookBodyBytes, type WebhookLogger } from "./send-webhook";

// An endpoint's deliveries log, an operator's retry, and the `webhook.test` event
// (docs/webhooks.md "Deliveries", "Testing an endpoint").

export interface WebhookDeliveryView {
  id: string;
  /** The body's `id` and the `Idempotency-Key` of every try. */
  event_id: string;
  type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  /** When the next try is due; null unless pending. */
  next_attempt_at: string | null;
  created_at: string;
}

function serializeWebhookDelivery(row: WebhookDeliveryRow): WebhookDeliveryView {
  return {
    id: row.id,
    event_id: row.event_id,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_attempt_at: row.status === "pending" ? (row.next_attempt_at?.toISOString() ?? null) : null,
    created_at: row.created_at.toISOString(),
  };
}

export interface WebhookDeliveriesDeps {
  prisma: RootDatabase;
  queues: Pick<Queues, "enqueue">;
  logger: WebhookLogger;
  now: () => Date;
}

export interface ListWebhookDeliveriesQuery extends PageRequest {
  status?: WebhookDeliveryStatus;
}

/** Newest first; 404 for an unknown endpoint. */
export async function listWebhookDeliveries(
  deps: Pick<WebhookDeliveriesDeps, "prisma">,
  endpointId: string,
  query: ListWebhookDeliveriesQuery,
): Promise<Page<WebhookDeliveryView>> {
  await loadWebhookEndpoint(deps, endpointId);
  const window = pageWindow(query);
  const rows = await findWebhookDeliveryPage(
    deps.prisma,
    { endpointId, ...(query.status !== undefined ? { status: query.status } : {}) },
    window,
  );
  return toPage(rows, window, (row) => row.id, serializeWebhookDelivery);
}

/** A `failed` delivery goes back to `pending`, tried at once with the same body and id; else 409. */
export async function retryWebhookDelivery(
  deps: WebhookDeliveriesDeps,
  endpointId: string,
  deliveryId: string,
): Promise<WebhookDeliveryView> {
  await loadWebhookEndpoint(deps, endpointId);
  const reopened = await reopenFailedWebhookDelivery(deps.prisma, endpointId, deliveryId, deps.now());
  if (!reopened) {
    const row = await findWebhookDelivery(deps.prisma, deliveryId);
    if (!row || row.endpoint_id !== endpointId)
      throw new AppError("not_found", `no delivery '${deliveryId}' of webhook endpoint '${endpointId}'`);
    throw new AppError("invalid_state", `delivery is ${row.status}; only failed deliveries can be retried`);
  }
  await enqueueWebhookTry(deps, reopened.id, reopened.next_attempt_at!);
  return serializeWebhookDelivery(reopened);
}

/**
 * A `webhook.test` event to this endpoint alone (sent even to a disabled endpoint? no: 409), as
 * any other delivery: signed, retried, logged. Answers 202 with the delivery.
 */
export async function testWebhookEndpoint(
  deps: WebhookDeliveriesDeps,
  endpointId: string,
): Promise<WebhookDeliveryView> {
  const endpoint = await loadWebhookEndpoint(deps, endpointId);
  if (!endpoint.enabled)
    throw new AppError("invalid_state", "the endpoint is disabled; enable it (PATCH enabled: true) first");
  const now = deps.now();
  const eventId = newId("webhookEvent", now.getTime());
  const body: WebhookBody = {
    id: eventId,
    type: "webhook.test",
    created_at: now.toISOString(),
    data: { endpoint: serializeWebhookEndpoint(endpoint) as unknown as Record<string, unknown> },
  };
  const id = newId("webhookDelivery", now.getTime());
  await insertWebhookDeliveries(deps.prisma, [
    { id, endpointId, eventId, type: "webhook.test", body: webhookBodyBytes(body), now },
  ]);
  await enqueueWebhookTry(deps, id, now);
  const row = await findWebhookDelivery(deps.prisma, id);
  return serializeWebhookDelivery(row!);
}
