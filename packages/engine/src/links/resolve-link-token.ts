import { AppError, isLinkTokenShaped, linkTokenHash } from "@svc/core";
import {
  findMessageByUnsubscribeTokenHash,
  findRecipientIdByPreferenceTokenHash,
  type Database,
} from "@svc/store";

// `/preferences/{token}` accepts the person's preference token or a message's unsubscribe token
// (docs/preferences.md, "Self-service"). Both are found by the SHA-256 of the token.

export type ResolvedLinkToken =
  | { kind: "preferences"; recipientId: string }
  | { kind: "unsubscribe"; recipientId: string; messageId: string; category: string };

const UNKNOWN_LINK_DETAIL =
  "This link is not valid: it may have been replaced by a newer one or the person no longer exists";

export async function resolveLinkToken(db: Database, token: string): Promise<ResolvedLinkToken> {
  if (isLinkTokenShaped(token)) {
    const hash = linkTokenHash(token);
    const recipientId = await findRecipientIdByPreferenceTokenHash(db, hash);
    if (recipientId !== null) return { kind: "preferences", recipientId };
    const message = await findMessageByUnsubscribeTokenHash(db, hash);
    if (message)
      return {
        kind: "unsubscribe",
        recipientId: message.recipient_id,
        messageId: message.id,
        category: message.category,
      };
  }
  throw new AppError("not_found", UNKNOWN_LINK_DETAIL);
}
