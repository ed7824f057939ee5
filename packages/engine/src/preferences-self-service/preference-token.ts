import { AppError, absoluteLinkUrl, preferencesPath, type Principal } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import type { Queues } from "@svc/queue";
import { $transaction, findRecipientId, type RootDatabase } from "@svc/store";
import { INBOX_TOPICS, inboxChangeEntry } from "../shared/inbox-changes";
import { requireSecretKey, rotatePreferenceToken } from "../links/link-tokens";
import { kickOutbox, recordOutbox } from "../outbox/outbox";
import { assertMayWritePeople } from "../shared/may-write-people";

/**
 * POST /v1/recipients/{external_id}/preference-token: a new token replaces the old one at once.
 * `url` is absolute with `api.public_url`, else the path on this service (docs/preferences.md,
 * "URLs"). The person's inbox tokens are bound to the old token's nonce: they stop working too, and
 * their open streams are told to close (docs/inbox.md "Tokens").
 */
export async function issuePreferenceToken(
  deps: {
    prisma: RootDatabase;
    config: Pick<SvcConfig, "secrets" | "api">;
    queues: Pick<Queues, "redis" | "prefix">;
    now: () => Date;
  },
  principal: Principal,
  externalId: string,
): Promise<{ token: string; url: string }> {
  assertMayWritePeople(principal);
  const secretKey = requireSecretKey(deps.config);
  const token = await $transaction(deps.prisma, async (tx) => {
    const personId = await findRecipientId(tx, externalId);
    if (personId === null) throw new AppError("not_found", `no recipient '${externalId}'`);
    const rotated = await rotatePreferenceToken(tx, secretKey, personId, deps.now());
    await recordOutbox(tx, [inboxChangeEntry(personId, INBOX_TOPICS.revoked, null)]);
    return rotated;
  });
  kickOutbox(deps.queues);
  const path = preferencesPath(token);
  return { token, url: absoluteLinkUrl(deps.config.api.public_url, path) ?? path };
}
