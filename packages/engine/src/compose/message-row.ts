import { randomBytes } from "node:crypto";
import { messageLinkTokens, type PolicyDecision } from "@svc/core";
import type { MessageRow, Prisma } from "@svc/store";
import type { ComposeRequest } from "./compose-types";
import type { LoadedComposition } from "./policy-context";
import type { MessageContent } from "./message-content";

// The decided message as a row (the "apply" of load → decide → apply writes it). Idempotency keys
// are remembered for 7 days (docs/decisions.md "Requests and responses"). Its link token hashes
// are written with it when the secret key is known (docs/preferences.md "Tokens"), so delivery
// does not update every message a second time to store them.

const IDEMPOTENCY_TTL_MS = 7 * 86_400_000;

export function messageRowOf(
  id: string,
  now: Date,
  request: ComposeRequest,
  loaded: LoadedComposition,
  decision: PolicyDecision<MessageContent>,
  secretKey: string | null,
): MessageRow {
  const idempotencyKey = request.idempotencyKey ?? null;
  const linkNonce = randomBytes(32).toString("base64url");
  const tokens = secretKey ? messageLinkTokens(secretKey, { id, link_nonce: linkNonce }) : null;
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
    link_nonce: linkNonce,
    unsubscribe_token_hash: tokens?.unsubscribeHash ?? null,
    tracking_token_hash: tokens?.trackingHash ?? null,
    sent_at: null,
    delivered_at: null,
    opened_at: null,
    clicked_at: null,
    converted_at: null,
    created_at: now,
    updated_at: now,
  };
}
