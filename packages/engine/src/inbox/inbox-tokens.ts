import {
  AppError,
  checkInboxToken,
  linkTokenHash,
  mintInboxToken,
  newLinkNonce,
  preferenceToken,
  readInboxToken,
  type Principal,
} from "@svc/core";
import type { SvcConfig } from "@svc/config";
import { createPreferenceTokens, findInboxTokenHolder, findRecipientId, type RootDatabase } from "@svc/store";
import { requireSecretKey } from "../links/link-tokens";
import { assertMayWritePeople } from "../shared/may-write-people";

// Inbox tokens (docs/inbox.md "Tokens"): minted for a person by their backend, one per page load,
// and never stored. A token is bound to the person's preference-token nonce, so rotating the
// preference token or erasing the person revokes every inbox token of theirs at once.

export interface InboxTokenDeps {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "secrets" | "inbox">;
  now: () => Date;
}

/** The person an inbox token speaks for. */
export interface InboxPerson {
  recipientId: string;
  externalId: string;
  /** The preference-token nonce the token was checked against (streams re-check it). */
  nonce: string;
  expiresAt: Date;
}

/** POST /v1/recipients/{external_id}/inbox-token. */
export async function issueInboxToken(
  deps: InboxTokenDeps,
  principal: Principal,
  externalId: string,
): Promise<{ token: string; expires_at: string }> {
  assertMayWritePeople(principal);
  const secretKey = requireSecretKey(deps.config);
  const recipientId = await findRecipientId(deps.prisma, externalId);
  if (recipientId === null) throw new AppError("not_found", `no recipient '${externalId}'`);
  const nonce = await preferenceNonce(deps, secretKey, recipientId);
  if (nonce === null) throw new AppError("not_found", `no recipient '${externalId}'`); // erased meanwhile
  const now = deps.now();
  const expiresAt = Math.floor(now.getTime() / 1000) + deps.config.inbox.token_ttl_seconds;
  return {
    token: mintInboxToken(secretKey, { recipientId, expiresAt }, nonce),
    expires_at: new Date(expiresAt * 1000).toISOString(),
  };
}

// The person's nonce, creating their preference token if they have none yet (a racing creator wins).
async function preferenceNonce(deps: InboxTokenDeps, secretKey: string, recipientId: string) {
  const nonce = newLinkNonce();
  const [row] = await createPreferenceTokens(
    deps.prisma,
    [{ recipientId, nonce, tokenHash: linkTokenHash(preferenceToken(secretKey, recipientId, nonce)) }],
    deps.now(),
  );
  return row?.nonce ?? null;
}

const INVALID = "invalid inbox token: it may have been revoked, or the person erased";

/** The person behind `Authorization: Bearer <inbox token>`; 401 for anything else. */
export async function authenticateInboxToken(deps: InboxTokenDeps, token: string): Promise<InboxPerson> {
  const claims = readInboxToken(token);
  if (!claims) throw unauthorized("not an inbox token");
  const secretKey = requireSecretKey(deps.config);
  const holder = await findInboxTokenHolder(deps.prisma, claims.recipientId);
  const check = checkInboxToken(secretKey, claims, holder?.nonce ?? null, deps.now());
  if (check === "expired") throw unauthorized("inbox token expired: mint a new one");
  if (check !== "valid" || !holder) throw unauthorized(INVALID);
  return {
    recipientId: holder.recipient_id,
    externalId: holder.external_id,
    nonce: holder.nonce,
    expiresAt: new Date(claims.expiresAt * 1000),
  };
}

function unauthorized(detail: string): AppError {
  return new AppError("unauthorized", detail, { headers: { "WWW-Authenticate": 'Bearer realm="inbox"' } });
}
