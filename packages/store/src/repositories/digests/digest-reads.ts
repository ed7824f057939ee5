import type { Prisma } from "../../generated/prisma/client";
import type { DigestRow, RecipientRow } from "../../rows";
import { pageArgs, type PageWindow } from "../paging";
import { prismaOf, type Database } from "../../transaction";

export type DigestItemRow = Prisma.DigestItemModel;
export type DigestWithItems = DigestRow & { items: DigestItemRow[] };

export async function findDigest(db: Database, id: string): Promise<DigestRow | null> {
  return prismaOf(db).digest.findUnique({ where: { id } });
}

export async function findDigestWithItems(db: Database, id: string): Promise<DigestWithItems | null> {
  return prismaOf(db).digest.findUnique({ where: { id }, include: { items: true } });
}

/** What closing composes from: the digest, its kept items and its person. */
export async function findDigestToClose(
  db: Database,
  id: string,
): Promise<(DigestWithItems & { recipient: RecipientRow }) | null> {
  return prismaOf(db).digest.findUnique({ where: { id }, include: { items: true, recipient: true } });
}

export interface DigestFilter {
  /** Internal id, which the (recipient_id, created_at) index serves. */
  recipientId?: string;
  status?: DigestRow["status"];
}

/** Digests newest first (see ../paging.ts), with their items. */
export async function findDigestPage(
  db: Database,
  filter: DigestFilter,
  window: PageWindow,
): Promise<DigestWithItems[]> {
  const filters: Prisma.DigestWhereInput[] = [];
  if (filter.recipientId !== undefined) filters.push({ recipient_id: filter.recipientId });
  if (filter.status !== undefined) filters.push({ status: filter.status });
  const q = pageArgs(window, "id");
  return prismaOf(db).digest.findMany({
    where: { AND: [...filters, q.where as Prisma.DigestWhereInput] },
    orderBy: q.orderBy,
    take: q.take,
    include: { items: true },
  });
}

/** Ids of open digests whose `closes_at` passed before `before`, those due longest first. */
export async function findOpenDigestsDueBefore(db: Database, before: Date, limit: number): Promise<string[]> {
  const dueAndOpen = { status: "open" as const, closes_at: { lt: before } };
  const due = await prismaOf(db).digest.findMany({
    where: dueAndOpen,
    orderBy: { closes_at: "asc" },
    take: limit,
    select: { id: true },
  });
  return due.map((d) => d.id);
}
