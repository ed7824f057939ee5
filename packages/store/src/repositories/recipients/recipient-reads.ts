import type { AddressRow, RecipientRow } from "../../rows";
import { pageArgs, type PageWindow } from "../paging";
import { prismaOf, type Database } from "../../transaction";

export type RecipientWithAddresses = RecipientRow & { addresses: AddressRow[] };

export async function findRecipientByExternalId(
  db: Database,
  externalId: string,
): Promise<RecipientRow | null> {
  return prismaOf(db).recipient.findUnique({ where: { external_id: externalId } });
}

export async function findRecipientWithAddresses(
  db: Database,
  externalId: string,
): Promise<RecipientWithAddresses | null> {
  return prismaOf(db).recipient.findUnique({
    where: { external_id: externalId },
    include: { addresses: true },
  });
}

/** Recipients newest first (see ../paging.ts), with their addresses. */
export async function findRecipientPage(db: Database, window: PageWindow): Promise<RecipientWithAddresses[]> {
  const q = pageArgs(window, "id");
  return prismaOf(db).recipient.findMany({
    where: q.where,
    orderBy: q.orderBy,
    take: q.take,
    include: { addresses: true },
  });
}

/** The recipient with this internal id, which the caller knows exists (Prisma's P2025 otherwise). */
export async function getRecipientById(db: Database, id: string): Promise<RecipientRow> {
  return prismaOf(db).recipient.findUniqueOrThrow({ where: { id } });
}

export type AudienceProfile = Pick<
  RecipientRow,
  "id" | "external_id" | "locale" | "timezone" | "region" | "attributes"
>;

/** People in id order after `afterId`, a page at a time (a broadcast filter streams through them). */
export async function findRecipientProfilesAfter(
  db: Database,
  afterId: string | null,
  limit: number,
): Promise<AudienceProfile[]> {
  return prismaOf(db).recipient.findMany({
    where: afterId === null ? {} : { id: { gt: afterId } },
    select: { id: true, external_id: true, locale: true, timezone: true, region: true, attributes: true },
    orderBy: { id: "asc" },
    take: limit,
  });
}
