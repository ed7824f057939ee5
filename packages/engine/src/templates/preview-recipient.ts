import { AppError } from "@svc/core";
import { findRecipientByExternalId, type RootDatabase } from "@svc/store";

/** What a template preview renders as `recipient`: the named person's profile, or null when none is named. */
export async function previewRecipient({ prisma }: { prisma: RootDatabase }, externalId: string | undefined) {
  if (externalId === undefined) return null;
  const row = await findRecipientByExternalId(prisma, externalId);
  if (!row) {
    throw new AppError("validation", `recipient: no recipient '${externalId}'`, {
      errors: [{ loc: ["body", "recipient"], msg: `no recipient '${externalId}'`, type: "value_error" }],
    });
  }
  const { external_id, locale, timezone, region, attributes } = row;
  return { external_id, locale, timezone, region, attributes: attributes as Record<string, unknown> };
}
