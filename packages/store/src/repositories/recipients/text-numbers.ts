import type { RecipientRow } from "../../rows";
import { prismaOf, type Database } from "../../transaction";

// Who has a text number (docs/texting.md "Numbers"): numbers are compared in E.164 through the
// generated column `addresses.e164`, however each address was written.

export type NumberHolder = Pick<RecipientRow, "id" | "muted_channels" | "unsubscribed_categories">;

/** Every person with an address on one of `channels` equal to `e164`, by internal id. */
export function findRecipientsWithNumber(
  db: Database,
  e164: string,
  channels: readonly string[],
): Promise<NumberHolder[]> {
  return prismaOf(db).recipient.findMany({
    where: { addresses: { some: { e164, channel: { in: [...channels] } } } },
    select: { id: true, muted_channels: true, unsubscribed_categories: true },
    orderBy: { id: "asc" },
  });
}

/** The E.164 forms of the person's addresses on `channels` (null values left out). */
export async function findNumbersOf(
  db: Database,
  recipientId: string,
  channels: readonly string[],
): Promise<string[]> {
  const rows = await prismaOf(db).address.findMany({
    where: { recipient_id: recipientId, channel: { in: [...channels] }, e164: { not: null } },
    select: { e164: true },
  });
  return [...new Set(rows.map((r) => r.e164!))];
}

/** Those of `e164Numbers` that someone other than this person also has, written in any form. */
export async function findNumbersSharedWithOthers(
  db: Database,
  e164Numbers: readonly string[],
  recipientId: string,
): Promise<string[]> {
  const rows = await prismaOf(db).address.findMany({
    where: { e164: { in: [...e164Numbers] }, recipient_id: { not: recipientId } },
    select: { e164: true },
    distinct: ["e164"],
  });
  return rows.map((r) => r.e164!);
}
