import { findCategory, getRecipientById, type Database } from "@svc/store";
import { resolveLinkToken } from "../links/resolve-link-token";

// What the hosted unsubscribe pages show besides the person's own preferences.

export interface CategoryOnPage {
  key: string;
  description: string;
}

/** A category as the pages name it; one deleted since shows its key alone. */
export async function categoryOnPage(db: Database, key: string): Promise<CategoryOnPage> {
  const category = await findCategory(db, key);
  return category ? { key: category.key, description: category.description } : { key, description: "" };
}

/**
 * Opening an unsubscribe link shows a confirmation (changing nothing): the person's locale and the
 * message's category. Null for a preferences link, which has nothing to confirm.
 */
export async function unsubscribeConfirmation(
  deps: { prisma: Database },
  token: string,
): Promise<{ locale: string | null; category: CategoryOnPage } | null> {
  const link = await resolveLinkToken(deps.prisma, token);
  if (link.kind !== "unsubscribe") return null;
  const person = await getRecipientById(deps.prisma, link.recipientId);
  return { locale: person.locale, category: await categoryOnPage(deps.prisma, link.category) };
}
