import type { PrismaClientOrTransaction } from "../../transaction";
import type { AddressRow, RecipientRow } from "../../rows";
import { pageArgs, type PageWindow } from "../paging";

export type RecipientWithAddresses = RecipientRow & { addresses: AddressRow[] };

export async function findRecipientByExternalId(
  db: PrismaClientOrTransaction,
  externalId: string,
): Promise<RecipientRow | null> {
  return db.recipient.findUnique({ where: { external_id: externalId } });
}

export async function findRecipientWithAddresses(
  db: PrismaClientOrTransaction,
  externalId: string,
): Promise<RecipientWithAddresses | null> {
  return db.recipient.findUnique({ where: { external_id: externalId }, include: { addresses: true } });
}

/** Recipients newest first (see ../paging.ts), with their addresses. */
export async function findRecipientPage(
  db: PrismaClientOrTransaction,
  window: PageWindow,
): Promise<RecipientWithAddresses[]> {
  const q = pageArgs(window, "id");
  return db.recipient.findMany({
    where: q.where,
    orderBy: q.orderBy,
    take: q.take,
    include: { addresses: true },
  });
}

/** The recipient with this internal id, which the caller knows exists (Prisma's P2025 otherwise). */
export async function getRecipientById(db: PrismaClientOrTransaction, id: string): Promise<RecipientRow> {
  return db.recipient.findUniqueOrThrow({ where: { id } });
}

export type AudienceProfile = Pick<
  RecipientRow,
  "id" | "external_id" | "locale" | "timezone" | "region" | "attributes"
>;

/** People in id order after `afterId`, a page at a time (a broadcast filter streams through them). */
export async function findRecipientProfilesAfter(
  db: PrismaClientOrTransaction,
  afterId: string | null,
  limit: number,
): Promise<AudienceProfile[]> {
  return db.recipient.findMany({
    where: afterId === null ? {} : { id: { gt: afterId } },
    select: { id: true, external_id: true, locale: true, timezone: true, region: true, attributes: true },
    orderBy: { id: "asc" },
    take: limit,
  });
}
