import { AppError, absoluteLinkUrl, preferencesPath, type Principal } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import { $transaction, findRecipientId, type PrismaClient } from "@svc/store";
import { requireSecretKey, rotatePreferenceToken } from "../links/link-tokens";
import { assertMayWritePeople } from "../recipients/may-write-people";

/**
 * POST /v1/recipients/{external_id}/preference-token: a new token replaces the old one at once.
 * `url` is absolute with `api.public_url`, else the path on this service (docs/preferences.md,
 * "URLs").
 */
export async function issuePreferenceToken(
  deps: { prisma: PrismaClient; config: Pick<SvcConfig, "secrets" | "api">; now: () => Date },
  principal: Principal,
  externalId: string,
): Promise<{ token: string; url: string }> {
  assertMayWritePeople(principal);
  const secretKey = requireSecretKey(deps.config);
  const token = await $transaction(deps.prisma, async (tx) => {
    const personId = await findRecipientId(tx, externalId);
    if (personId === null) throw new AppError("not_found", `no recipient '${externalId}'`);
    return rotatePreferenceToken(tx, secretKey, personId, deps.now());
  });
  const path = preferencesPath(token);
  return { token, url: absoluteLinkUrl(deps.config.api.public_url, path) ?? path };
}
