import { findRecipientId, type RootDatabase } from "@svc/store";
import type { Page } from "./paging";

/**
 * A list filtered by `recipient` (an external id) reads by internal id, which its
 * (recipient_id, created_at) index serves; an unknown recipient has an empty page.
 * `read` gets undefined when the list is not filtered.
 */
export async function pageForRecipient<T>(
  prisma: RootDatabase,
  externalId: string | undefined,
  read: (recipientId: string | undefined) => Promise<Page<T>>,
): Promise<Page<T>> {
  if (externalId === undefined) return read(undefined);
  const recipientId = await findRecipientId(prisma, externalId);
  return recipientId === null ? { items: [], next_cursor: null } : read(recipientId);
}
