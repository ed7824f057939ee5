import type { BroadcastStatus, Prisma } from "../../generated/prisma/client";
import type { BroadcastRow } from "../../rows";
import { pageArgs, type PageWindow } from "../paging";
import { prismaOf, type Database } from "../../transaction";

// The broadcast row: created as `draft`, edited only while `draft`, and every status change a
// compare-and-set on the status it leaves (docs/broadcasts.md "Lifecycle").

export type BroadcastFields = Pick<
  BroadcastRow,
  "name" | "template" | "category" | "channels" | "importance" | "send_at" | "rate_per_second"
> & { data: Prisma.InputJsonValue; audience: Prisma.InputJsonValue; total: number | null };

export async function insertBroadcast(
  db: Database,
  row: BroadcastFields & { id: string; created_by_key_id: string | null; created_at: Date },
): Promise<BroadcastRow> {
  return prismaOf(db).broadcast.create({ data: { ...row, status: "draft", updated_at: row.created_at } });
}

export async function findBroadcast(db: Database, id: string): Promise<BroadcastRow | null> {
  return prismaOf(db).broadcast.findUnique({ where: { id } });
}

/** Only the status, for the checks a running chunk makes between batches. */
export async function findBroadcastStatus(db: Database, id: string): Promise<BroadcastStatus | null> {
  const row = await prismaOf(db).broadcast.findUnique({ where: { id }, select: { status: true } });
  return row?.status ?? null;
}

/** Newest first (see ../paging.ts). */
export async function findBroadcastPage(
  db: Database,
  filter: { status?: BroadcastStatus },
  window: PageWindow,
): Promise<BroadcastRow[]> {
  const q = pageArgs(window, "id");
  const filters: Prisma.BroadcastWhereInput[] = [q.where as Prisma.BroadcastWhereInput];
  if (filter.status !== undefined) filters.push({ status: filter.status });
  return prismaOf(db).broadcast.findMany({ where: { AND: filters }, orderBy: q.orderBy, take: q.take });
}

/** Changes the given fields of a `draft`; null when the broadcast is gone or no longer a draft. */
export async function updateDraftBroadcast(
  db: Database,
  id: string,
  fields: Partial<BroadcastFields>,
  now: Date,
): Promise<BroadcastRow | null> {
  const { count } = await prismaOf(db).broadcast.updateMany({
    where: { id, status: "draft" },
    data: { ...fields, updated_at: now },
  });
  return count === 1 ? findBroadcast(db, id) : null;
}

export interface StatusChange {
  from: BroadcastStatus;
  to: BroadcastStatus;
  /** A start or resume: the run number goes up, so its jobs get new ids. */
  newRun?: boolean;
  statusReason?: string | null;
  startedAt?: Date;
  completedAt?: Date;
}

/** Compare-and-set on `from`; the changed row, or null when another change came first. */
export async function changeBroadcastStatus(
  db: Database,
  id: string,
  change: StatusChange,
  now: Date,
): Promise<BroadcastRow | null> {
  const data: Prisma.BroadcastUpdateManyMutationInput = { status: change.to, updated_at: now };
  if (change.newRun) data.run = { increment: 1 };
  if (change.statusReason !== undefined) data.status_reason = change.statusReason;
  if (change.startedAt) data.started_at = change.startedAt;
  if (change.completedAt) data.completed_at = change.completedAt;
  const { count } = await prismaOf(db).broadcast.updateMany({ where: { id, status: change.from }, data });
  return count === 1 ? findBroadcast(db, id) : null;
}

/** Starts the clock once (`started_at` stays the first moment it ran). */
export async function stampBroadcastStarted(db: Database, id: string, at: Date): Promise<void> {
  await prismaOf(db).broadcast.updateMany({ where: { id, started_at: null }, data: { started_at: at } });
}

/** Broadcasts the sweep looks after: `scheduled` ones whose time came and `running` ones. */
export async function findBroadcastsToAdvance(
  db: Database,
  now: Date,
  limit: number,
): Promise<Pick<BroadcastRow, "id" | "run" | "status">[]> {
  return prismaOf(db).broadcast.findMany({
    where: { OR: [{ status: "scheduled", send_at: { lte: now } }, { status: "running" }] },
    select: { id: true, run: true, status: true },
    orderBy: { id: "asc" },
    take: limit,
  });
}
