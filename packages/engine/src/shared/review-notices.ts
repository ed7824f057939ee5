import {
  APPROVAL_REQUESTED,
  deriveLinkToken,
  linkTokenHash,
  newId,
  newLinkNonce,
  reviewNoticeData,
  reviewNoticeKey,
  type HeldMessageNotice,
  type ReviewNotice,
} from "@svc/core";
import type { SvcConfig } from "@svc/config";
import {
  insertReviewLinks,
  insertServiceEvents,
  type AgentRow,
  type MessageRow,
  type NewReviewLink,
  type NewServiceEvent,
  type Transaction,
} from "@svc/store";

// Reviewers are told (docs/approvals.md "Reviewers are told"): for each held item, one
// `svc.approval_requested` event per reviewer, handled by ordinary rules, and, when svc has a
// public URL to link to, that reviewer's own review link. Both are written in the transaction that
// holds the item, so a crash cannot lose a notice; the events are ingested after the commit (a
// lost enqueue is caught by the pending-events sweep).

export interface NoticeDeps {
  config: Pick<SvcConfig, "api" | "secrets">;
  now: () => Date;
}

export interface ItemToAnnounce {
  notice: ReviewNotice;
  reviewers: readonly string[];
}

/** Writes the notices of held items; returns the ids of the events to ingest after the commit. */
export async function announceHeldItems(
  tx: Transaction,
  deps: NoticeDeps,
  items: readonly ItemToAnnounce[],
): Promise<string[]> {
  const now = deps.now();
  const secretKey = deps.config.secrets.secretKey;
  // A link needs somewhere to point and a key to sign with; without either, reviewers decide by API.
  const withLinks = deps.config.api.public_url !== null && secretKey !== null;
  const events: NewServiceEvent[] = [];
  const links: NewReviewLink[] = [];
  for (const { notice, reviewers } of items) {
    const itemId = notice.kind === "message" ? notice.message_id : notice.approval_id;
    for (const reviewer of new Set(reviewers)) {
      events.push({
        id: newId("event", now.getTime()),
        name: APPROVAL_REQUESTED,
        recipientExternalId: reviewer,
        data: reviewNoticeData(notice, withLinks),
        idempotencyKey: reviewNoticeKey(itemId, reviewer),
      });
      if (!withLinks) continue;
      const id = newId("reviewLink", now.getTime());
      const nonce = newLinkNonce();
      links.push({
        id,
        nonce,
        tokenHash: linkTokenHash(reviewToken(secretKey!, id, nonce)),
        messageId: notice.kind === "message" ? notice.message_id : null,
        approvalId: notice.kind === "action" ? notice.approval_id : null,
        reviewer,
        expiresAt: notice.expires_at,
      });
    }
  }
  await insertReviewLinks(tx, links, now);
  await insertServiceEvents(tx, events, now);
  return events.map((event) => event.id);
}

/** A review link's token: HMAC of its id and nonce (only its SHA-256 is stored). */
export const reviewToken = (secretKey: string, linkId: string, nonce: string): string =>
  deriveLinkToken(secretKey, "review", [linkId], nonce);

export const reviewPath = (token: string): string => `/review/${token}`;

/** The notice of a message held for `agent` (its reviewers are told). */
export function heldMessageNotice(message: MessageRow, agent: AgentRow | null): ItemToAnnounce {
  const content = (message.content ?? {}) as { title?: unknown; body?: unknown };
  const notice: HeldMessageNotice = {
    kind: "message",
    message_id: message.id,
    agent: message.agent_key,
    agent_name: agent?.name ?? null,
    recipient: message.recipient_external_id,
    category: message.category,
    title: typeof content.title === "string" ? content.title : "",
    body: typeof content.body === "string" ? content.body : "",
    importance: message.importance,
    expires_at: message.approval_expires_at ?? message.send_at,
  };
  return { notice, reviewers: agent?.reviewers ?? [] };
}
