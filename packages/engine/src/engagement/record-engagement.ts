import {
  AppError,
  fatigueAfterEngagement,
  isLinkTokenShaped,
  linkTokenHash,
  type Principal,
} from "@svc/core";
import {
  $transaction,
  findMessage,
  findMessageIdByTrackingHash,
  insertDeliveredReports,
  insertEngagement,
  markMessagesDelivered,
  saveFatigueState,
  stampMessageEngagement,
  type RootDatabase,
  type Transaction,
} from "@svc/store";
import { recordFinalMessage } from "../metrics/record-metrics";
import { emitWebhookEvents, messageEmission } from "../outbox/emit";

// Engagement (docs/messages.md, "Engagement and tracking"): `delivered` confirms delivery
// (`sent` → `delivered`); opened, clicked and converted are engagement: they stamp the message and
// end the person's fatigue for its category. One row per (message, type): repeats change nothing.

export type EngagementType = "delivered" | "opened" | "clicked" | "converted";

export interface EngagementInput {
  type: EngagementType;
}

export interface EngagementResult {
  message_id: string;
  type: EngagementType;
  /** False when this type was already recorded for the message. */
  recorded: boolean;
}

/** `POST /v1/messages/{id}/engagement`: 404 unknown, 403 for an agent key reaching another sender's message. */
export async function recordMessageEngagement(
  deps: { prisma: RootDatabase; now: () => Date },
  principal: Principal,
  messageId: string,
  input: EngagementInput,
): Promise<EngagementResult> {
  const message = await findMessage(deps.prisma, messageId);
  if (!message) throw new AppError("not_found", `no message '${messageId}'`);
  if (principal.agentKey !== null && message.agent_key !== principal.agentKey) {
    throw new AppError("forbidden", "agent keys may only reach their own messages");
  }
  return recordEngagement(deps, messageId, input.type, `api:${principal.keyId}`);
}

/** `POST /v1/track/{token}`: the message's tracking token authenticates; only its SHA-256 is stored. */
export async function recordTrackedEngagement(
  deps: { prisma: RootDatabase; now: () => Date },
  token: string,
  input: EngagementInput,
): Promise<EngagementResult> {
  const message = isLinkTokenShaped(token)
    ? await findMessageIdByTrackingHash(deps.prisma, linkTokenHash(token))
    : null;
  if (!message) throw new AppError("not_found", "unknown tracking token");
  return recordEngagement(deps, message.id, input.type, "track");
}

export async function recordEngagement(
  deps: { prisma: RootDatabase; now: () => Date },
  messageId: string,
  type: EngagementType,
  source: string,
): Promise<EngagementResult> {
  if (type === "delivered") {
    const [recorded] = await recordDeliveries(deps, [messageId], source);
    return { message_id: messageId, type, recorded: recorded === messageId };
  }
  const now = deps.now();
  return $transaction(deps.prisma, async (tx) => {
    // The unique (message, type) row decides which of two racing reports does the work.
    const recorded = await insertEngagement(tx, { messageId, type, source, at: now });
    if (!recorded) return { message_id: messageId, type, recorded: false };
    const message = await stampMessageEngagement(tx, messageId, type, now);
    await saveFatigueState(tx, message.recipient_id, message.category, fatigueAfterEngagement(), now);
    const status = { id: messageId, status: message.status, status_reason: message.status_reason };
    await emitWebhookEvents(tx, [messageEmission("message.engaged", status, now, { engagement: type })]);
    return { message_id: messageId, type, recorded: true };
  });
}

/**
 * `delivered` for many messages in one transaction (the one path for it: reports, and inbox items
 * a client received, docs/inbox.md): each is recorded once, and a `sent` message becomes
 * `delivered` (with its `message.delivered` webhook event). Returns the messages whose report was new.
 */
export async function recordDeliveries(
  { prisma, now: clock }: { prisma: RootDatabase; now: () => Date },
  messages: readonly string[] | ((tx: Transaction) => Promise<readonly string[]>),
  source: string,
): Promise<string[]> {
  if (Array.isArray(messages) && messages.length === 0) return [];
  const now = clock();
  const { recorded, delivered } = await $transaction(prisma, async (tx) => {
    // Either the messages, or what picks them inside this transaction (inbox items received).
    const ids = typeof messages === "function" ? await messages(tx) : messages;
    const recorded = await insertDeliveredReports(tx, ids, source, now);
    const delivered = await markMessagesDelivered(tx, recorded, now);
    await emitWebhookEvents(
      tx,
      delivered.map((id) =>
        messageEmission("message.delivered", { id, status: "delivered", status_reason: null }, now),
      ),
    );
    return { recorded, delivered };
  });
  recordFinalMessage("delivered", null, delivered.length);
  return recorded;
}
