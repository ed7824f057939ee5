import { findEvent, findRule, type MessageRow, type Transaction } from "@svc/store";
import { decideMessage, type DecidedMessage } from "../compose/compose-message";
import type { ComposeDeps, ComposeRequest } from "../compose/compose-types";
import { readCompositionRows } from "../compose/composition-rows";
import type { MessageContent } from "../compose/message-content";

/**
 * The policy again for a message a reviewer just approved (docs/approvals.md "Approving a held
 * message"), under the caller's transaction and recipient lock: unsubscribes, consent, reachability,
 * quiet hours, expiry, caps, fatigue and the agent's budget as they are now, without a second rule
 * delay or approval, with the content the reviewer saw. Writes nothing.
 */
export async function recheckApprovedMessage(
  tx: Transaction,
  deps: ComposeDeps,
  message: MessageRow,
): Promise<DecidedMessage> {
  const [event, rule] = await Promise.all([
    message.event_id ? findEvent(tx, message.event_id) : null,
    message.rule ? findRule(tx, message.rule) : null,
  ]);
  const request: ComposeRequest = {
    recipientId: message.recipient_id,
    template: message.template ?? "",
    category: message.category,
    channels: message.channels,
    importance: message.claimed_importance,
    data: (message.data ?? {}) as Record<string, unknown>,
    sender: message.sender,
    agentKey: message.agent_key,
    apiKeyId: message.api_key_id,
    rule: message.rule
      ? {
          key: message.rule,
          delaySeconds: null,
          cooldownSeconds: rule?.cooldown_seconds ?? null,
          expiresInSeconds: null,
        }
      : null,
    event: event ? { id: event.id, name: event.name, created_at: event.created_at } : null,
    broadcastId: message.broadcast_id,
    digestId: message.digest_id,
    dedupKey: null,
    expiresAt: message.expires_at,
    // Not before the send time it was decided for (a rule delay, quiet hours), else now.
    dueAt: message.send_at,
  };
  const rows = await readCompositionRows(tx, request);
  return decideMessage(tx, deps, request, rows, {
    duplicateOf: null,
    approved: { messageId: message.id, content: message.content as unknown as MessageContent },
  });
}
