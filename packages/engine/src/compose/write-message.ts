import { randomBytes } from "node:crypto";
import type { FatigueState, PolicyDecision } from "@svc/core";
import { Prisma, type MessageRow, type TransactionClient } from "@svc/store";
import type { ComposeRequest } from "./compose-types";
import type { LoadedComposition } from "./load-policy-context";
import type { MessageContent } from "./message-content";

// The "apply" of load → decide → apply: the decided message as a row, and the fatigue state it
// leaves behind. Idempotency keys are remembered for 7 days (DECISIONS "Requests and responses").

export const IDEMPOTENCY_TTL_MS = 7 * 86_400_000;

export function messageRowOf(
  id: string,
  now: Date,
  request: ComposeRequest,
  loaded: LoadedComposition,
  decision: PolicyDecision<MessageContent>,
): MessageRow {
  const idempotencyKey = request.idempotencyKey ?? null;
  return {
    id,
    status: decision.status,
    status_reason: decision.statusReason,
    recipient_id: loaded.recipient.id,
    recipient_external_id: loaded.recipient.external_id,
    sender: request.sender,
    agent_key: request.agentKey,
    api_key_id: request.apiKeyId,
    category: loaded.category.key,
    template: request.template,
    rule: request.rule?.key ?? null,
    event_id: request.event?.id ?? null,
    broadcast_id: request.broadcastId ?? null,
    digest_id: request.digestId ?? null,
    importance: decision.importance,
    claimed_importance: decision.claimedImportance,
    channels: decision.channels,
    channel: null,
    content: decision.content as unknown as Prisma.JsonValue,
    data: request.data as Prisma.JsonValue,
    idempotency_key: idempotencyKey,
    request_hash: idempotencyKey ? (request.requestHash ?? null) : null,
    idempotency_expires_at: idempotencyKey ? new Date(now.getTime() + IDEMPOTENCY_TTL_MS) : null,
    dedup_key: request.dedupKey,
    send_at: decision.sendAt,
    expires_at: loaded.ctx.message.expiresAt,
    approval_expires_at: decision.approvalExpiresAt,
    reviewed_by: null,
    reviewed_by_key_id: null,
    reviewed_at: null,
    screening: null,
    generation: 0,
    lease_until: null,
    delivery_attempts: 0,
    link_nonce: randomBytes(32).toString("base64url"),
    unsubscribe_token_hash: null,
    tracking_token_hash: null,
    sent_at: null,
    delivered_at: null,
    opened_at: null,
    clicked_at: null,
    converted_at: null,
    created_at: now,
    updated_at: now,
  };
}

const jsonOrDbNull = (value: Prisma.JsonValue) =>
  value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue);

export function insertMessage(tx: TransactionClient, row: MessageRow): Promise<MessageRow> {
  return tx.message.create({
    data: {
      ...row,
      content: jsonOrDbNull(row.content),
      data: (row.data ?? {}) as Prisma.InputJsonValue,
      screening: jsonOrDbNull(row.screening),
    },
  });
}

export async function saveFatigue(
  tx: TransactionClient,
  recipientId: string,
  category: string,
  state: FatigueState,
  now: Date,
): Promise<void> {
  const values = {
    sent_since_engagement: state.sentSinceEngagement,
    paused_until: state.pausedUntil,
    probe_message_id: state.probeMessageId,
    probe_sent_at: state.probeSentAt,
    updated_at: now,
  };
  await tx.fatigueState.upsert({
    where: { recipient_id_category: { recipient_id: recipientId, category } },
    create: { recipient_id: recipientId, category, ...values },
    update: values,
  });
}
