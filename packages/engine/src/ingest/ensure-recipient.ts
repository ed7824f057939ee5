import { newId } from "@svc/core";
import type { EventRow, RecipientRow, TransactionClient } from "@svc/store";
import { writeProfile, type RecipientProfileInput } from "../recipients/recipient-profile";

/**
 * The event's recipient row, under the recipient lock: the inline profile is applied first
 * (SPEC 2.3); an unknown external id gets a bare profile (no addresses), so every outcome and
 * message points at a person and later profile writes fill it in.
 */
export async function ensureRecipient(
  tx: TransactionClient,
  event: Pick<EventRow, "recipient_external_id" | "recipient_profile">,
  now: Date,
): Promise<RecipientRow> {
  const externalId = event.recipient_external_id;
  if (event.recipient_profile !== null) {
    await writeProfile(tx, externalId, event.recipient_profile as RecipientProfileInput, now);
  }
  const existing = await tx.recipient.findUnique({ where: { external_id: externalId } });
  if (existing) return existing;
  return tx.recipient.create({
    data: {
      id: newId("recipient", now.getTime()),
      external_id: externalId,
      created_at: now,
      updated_at: now,
    },
  });
}
