import type { CallbackStatus, Prisma } from "../../generated/prisma/client";
import { pageArgs, type PageWindow } from "../paging";
import type { CallbackDeliveryRow } from "./callback-deliveries";
import { prismaOf, type Database } from "../../transaction";

// Sending the decision callbacks (docs/approvals.md "Decision callbacks"). The row is the truth:
// `pending` with `next_attempt_at` is what is due; a try claims the row by moving `next_attempt_at`
// to the end of its lease, and records its outcome only while it still holds that claim.

export function findCallbackDelivery(db: Database, id: string): Promise<CallbackDeliveryRow | null> {
  return prismaOf(db).callbackDelivery.findUnique({ where: { id } });
}

/**
 * Claims a due `pending` callback for one try: `next_attempt_at` moves to `leaseUntil`, so no
 * other job claims it meanwhile, and a worker that dies mid-send leaves a row the sweep finds once
 * the lease ran out. Returns the claimed row (its `next_attempt_at` is the claim), or null.
 */
export async function claimCallbackDelivery(
  db: Database,
  id: string,
  now: Date,
  leaseUntil: Date,
): Promise<CallbackDeliveryRow | null> {
  const rows = await prismaOf(db).callbackDelivery.updateManyAndReturn({
    where: { id, status: "pending", next_attempt_at: { lte: now } },
    data: { next_attempt_at: leaseUntil },
  });
  return rows[0] ?? null;
}

/** A claim as `claimCallbackDelivery` returned it: the row id, its tries so far and its lease. */
export interface CallbackClaim {
  id: string;
  attempts: number;
  leaseUntil: Date;
}

function heldBy(claim: CallbackClaim): Prisma.CallbackDeliveryWhereInput {
  return { id: claim.id, status: "pending", attempts: claim.attempts, next_attempt_at: claim.leaseUntil };
}

/** The try succeeded: `delivered`. False when the claim was lost (another try took over). */
export async function markCallbackDelivered(db: Database, claim: CallbackClaim, now: Date): Promise<boolean> {
  const { count } = await prismaOf(db).callbackDelivery.updateMany({
    where: heldBy(claim),
    data: { status: "delivered", attempts: { increment: 1 }, delivered_at: now, next_attempt_at: null },
  });
  return count === 1;
}

/**
 * The try failed: one more attempt and its error; the next try at `retryAt`, or `failed` when
 * `retryAt` is null. False when the claim was lost.
 */
export async function recordCallbackFailure(
  db: Database,
  claim: CallbackClaim,
  error: string,
  retryAt: Date | null,
): Promise<boolean> {
  const { count } = await prismaOf(db).callbackDelivery.updateMany({
    where: heldBy(claim),
    data: {
      attempts: { increment: 1 },
      last_error: error,
      ...(retryAt === null ? { status: "failed", next_attempt_at: null } : { next_attempt_at: retryAt }),
    },
  });
  return count === 1;
}

/** `pending` callbacks due before `dueBefore` (their job presumed lost), longest due first. */
export function findDueCallbacks(
  db: Database,
  dueBefore: Date,
  limit: number,
): Promise<{ id: string; next_attempt_at: Date | null }[]> {
  return prismaOf(db).callbackDelivery.findMany({
    where: { status: "pending", next_attempt_at: { lte: dueBefore } },
    orderBy: { next_attempt_at: "asc" },
    take: limit,
    select: { id: true, next_attempt_at: true },
  });
}

/** An operator's retry: `failed` → `pending` with no attempts, due now. Null unless it was `failed`. */
export async function reopenFailedCallback(
  db: Database,
  id: string,
  now: Date,
): Promise<CallbackDeliveryRow | null> {
  const rows = await prismaOf(db).callbackDelivery.updateManyAndReturn({
    where: { id, status: "failed" },
    data: { status: "pending", attempts: 0, next_attempt_at: now },
  });
  return rows[0] ?? null;
}

/** Newest first, optionally of one status. */
export function findCallbackPage(
  db: Database,
  filter: { status?: CallbackStatus },
  window: PageWindow,
): Promise<CallbackDeliveryRow[]> {
  const q = pageArgs(window, "id");
  const filters: Prisma.CallbackDeliveryWhereInput[] = [q.where as Prisma.CallbackDeliveryWhereInput];
  if (filter.status !== undefined) filters.push({ status: filter.status });
  return prismaOf(db).callbackDelivery.findMany({
    where: { AND: filters },
    orderBy: q.orderBy,
    take: q.take,
  });
}
