import type { Prisma } from "../../generated/prisma/client";
import type { DigestRow } from "../../rows";
import { transactionOf, type Transaction } from "../../transaction";

// Ingest adds events to open digests under the recipient lock (the engine's ingest/join-digest.ts).

/** The open digest of a group, by its `open_key` (`<rule>|<recipient id>|<key>`). */
export async function findOpenDigest(tx: Transaction, openKey: string): Promise<DigestRow | null> {
  return transactionOf(tx).digest.findUnique({ where: { open_key: openKey } });
}

export interface NewDigest {
  id: string;
  rule_key: string;
  recipient_id: string;
  recipient_external_id: string;
  key: string;
  open_key: string;
  closes_at: Date;
  now: Date;
}

/** An open, empty digest. */
export async function openDigest(tx: Transaction, digest: NewDigest): Promise<DigestRow> {
  const { now, ...columns } = digest;
  return transactionOf(tx).digest.create({
    data: { ...columns, status: "open", count: 0, created_at: now, updated_at: now },
  });
}

/** The digest's new event count; `closesNow` moves `closes_at` to now (`send_after` reached). */
export async function recordDigestCount(
  tx: Transaction,
  id: string,
  count: number,
  now: Date,
  closesNow: boolean,
): Promise<DigestRow> {
  return transactionOf(tx).digest.update({
    where: { id },
    data: { count, updated_at: now, ...(closesNow ? { closes_at: now } : {}) },
  });
}

/**
 * Adds the event as an item in event order: positions follow (event time, event id). The usual
 * case appends; a late older event shifts the newer items up by one and takes the place of the
 * first of them.
 */
export async function insertDigestItemInEventOrder(
  tx: Transaction,
  digestId: string,
  event: { id: string; created_at: Date; data: unknown },
): Promise<void> {
  const firstNewer = await transactionOf(tx).digestItem.findFirst({
    where: {
      digest_id: digestId,
      OR: [
        { event_at: { gt: event.created_at } },
        { event_at: event.created_at, event_id: { gt: event.id } },
      ],
    },
    orderBy: { position: "asc" },
  });
  let position: number;
  if (firstNewer) {
    await transactionOf(tx).digestItem.updateMany({
      where: { digest_id: digestId, position: { gte: firstNewer.position } },
      data: { position: { increment: 1 } },
    });
    position = firstNewer.position;
  } else {
    const last = await transactionOf(tx).digestItem.findFirst({
      where: { digest_id: digestId },
      orderBy: { position: "desc" },
    });
    position = (last?.position ?? -1) + 1;
  }
  await transactionOf(tx).digestItem.create({
    data: {
      digest_id: digestId,
      event_id: event.id,
      position,
      data: (event.data ?? {}) as Prisma.InputJsonValue,
      event_at: event.created_at,
    },
  });
}

/** Keeps the `maxItems` most recent items (by position) and deletes the older ones. */
export async function dropDigestItemsBeyond(
  tx: Transaction,
  digestId: string,
  maxItems: number,
): Promise<void> {
  const dropped = await transactionOf(tx).digestItem.findMany({
    where: { digest_id: digestId },
    orderBy: { position: "desc" },
    skip: maxItems,
    select: { event_id: true },
  });
  if (dropped.length === 0) return;
  await transactionOf(tx).digestItem.deleteMany({
    where: { digest_id: digestId, event_id: { in: dropped.map((k) => k.event_id) } },
  });
}
