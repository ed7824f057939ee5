import type { SvcConfig } from "@svc/config";
import { newId, webhookFilterMatches } from "@svc/core";
import type { Queues } from "@svc/queue";
import {
  findEnabledWebhookEndpoints,
  insertWebhookDeliveries,
  type NewWebhookDelivery,
  type RootDatabase,
} from "@svc/store";
import type { OutboxConsumer } from "../outbox/relay-outbox";
import { WEBHOOK_EVENT_TOPIC } from "../outbox/emit";
import { buildWebhookData, type WebhookEventPayload } from "./webhook-data";
import { webhookTryJobId } from "./webhook-retry";
import { webhookBodyBytes, webhookLeaseMs, WEBHOOK_PER_ENDPOINT_IN_FLIGHT } from "./send-webhook";

// The outbox consumer of webhook events (docs/webhooks.md "How events leave"): under the relay's
// transaction, one delivery row per event and subscribed enabled endpoint, its body frozen; after
// the commit, one `send-webhook` job per row (a lost enqueue is found by the requeue sweep).

export interface FanOutDeps {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "webhooks">;
  queues: Pick<Queues, "enqueueBulk">;
  logger: { warn(message: string, meta?: Record<string, unknown>): void };
  now: () => Date;
}

/** The body POSTed: `{id, type, created_at, data}` (docs/webhooks.md "The body"). */
export interface WebhookBody {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/**
 * The event's id for one endpoint: the outbox entry and the endpoint, so a fan-out repeated after
 * a rolled-back pass writes the same id (and the unique index keeps one row).
 */
export function webhookEventId(entryId: string, endpointId: string): string {
  return `whe_${entryId}_${endpointId.replace(/^whk_/, "")}`;
}

export function webhookFanOut(deps: FanOutDeps): OutboxConsumer {
  return {
    name: "webhooks",
    async consume(tx, entries) {
      const events = entries.filter((entry) => entry.topic === WEBHOOK_EVENT_TOPIC);
      if (events.length === 0) return;
      const endpoints = await findEnabledWebhookEndpoints(tx);
      if (endpoints.length === 0) return;
      const matched = events
        .map((entry) => ({
          entry,
          payload: entry.payload as unknown as WebhookEventPayload,
        }))
        .map((event) => ({
          ...event,
          endpoints: endpoints.filter((endpoint) =>
            endpoint.events.some((filter) => webhookFilterMatches(filter, event.payload.type)),
          ),
        }))
        .filter((event) => event.endpoints.length > 0);
      if (matched.length === 0) return;
      const built = await buildWebhookData(
        { prisma: deps.prisma, now: deps.now },
        matched.map((event) => event.payload),
      );
      // An event about a person erased before its fan-out is dropped (docs/webhooks.md "Personal data").
      const kept = matched.flatMap((event, index) => {
        const data = built[index];
        return data ? [{ ...event, data }] : [];
      });
      if (kept.length === 0) return;
      const now = deps.now();
      // Written claimed for the jobs enqueued after the commit (no second write to claim them); a
      // lost job's rows come back through the sweep once the claim ran out.
      const claimedUntil = new Date(
        now.getTime() +
          webhookLeaseMs(
            WEBHOOK_BATCH,
            WEBHOOK_PER_ENDPOINT_IN_FLIGHT,
            deps.config.webhooks.timeout_seconds * 1000,
          ),
      );
      const rows: NewWebhookDelivery[] = kept.flatMap((event) =>
        event.endpoints.map((endpoint) => {
          const eventId = webhookEventId(event.entry.id, endpoint.id);
          const body: WebhookBody = {
            id: eventId,
            type: event.payload.type,
            created_at: event.payload.occurred_at,
            data: event.data.data,
          };
          return {
            id: newId("webhookDelivery", now.getTime()),
            endpointId: endpoint.id,
            eventId,
            type: event.payload.type,
            body: webhookBodyBytes(body),
            recipientId: event.data.recipientId,
            now,
            claimedUntil,
          };
        }),
      );
      await insertWebhookDeliveries(tx, rows);
      return () =>
        enqueueWebhookTries(
          deps,
          rows.map((row) => row.id),
          now,
          claimedUntil,
        );
    },
  };
}

/** Deliveries per `send-webhooks` job: enough to share the queries, few enough to spread over workers. */
const WEBHOOK_BATCH = 50;

/** Adds the first tries' jobs (one per WEBHOOK_BATCH); if Redis refuses, the requeue-webhooks sweep adds them. */
async function enqueueWebhookTries(
  deps: Pick<FanOutDeps, "queues" | "logger">,
  deliveryIds: readonly string[],
  dueAt: Date,
  claimedUntil?: Date,
): Promise<void> {
  if (deliveryIds.length === 0) return;
  const batches: string[][] = [];
  for (let i = 0; i < deliveryIds.length; i += WEBHOOK_BATCH)
    batches.push(deliveryIds.slice(i, i + WEBHOOK_BATCH));
  try {
    await deps.queues.enqueueBulk(
      batches.map((ids) => ({
        name: "send-webhooks" as const,
        payload: { deliveryIds: ids, ...(claimedUntil ? { claimedUntil: claimedUntil.toISOString() } : {}) },
        opts: { jobId: `${webhookTryJobId(ids[0]!, dueAt)}-batch` },
      })),
    );
  } catch (error) {
    deps.logger.warn("send-webhook not enqueued; the requeue-webhooks sweep will add it", {
      deliveries: deliveryIds.length,
      error: (error as Error).message,
    });
  }
}
