import { newId } from "@svc/core";
import type { MessageRow, PrismaClient } from "@svc/store";
import type { StoredAttempt } from "./delivery-run";
import type { AttemptRecord } from "./send-to-channel";

// Writes of a delivery run. Final writes are compare-and-set on (id, generation, `sending`), so a
// worker whose lease was taken over cannot overwrite the newer run's outcome.

/** Attempts are facts: written even when the run lost its lease; the run counter grows with them. */
export async function recordAttempts(
  prisma: PrismaClient,
  messageId: string,
  at: Date,
  attempts: AttemptRecord[],
): Promise<void> {
  if (attempts.length === 0) return;
  await prisma.$transaction([
    prisma.deliveryAttempt.createMany({
      data: attempts.map((a) => ({
        id: newId("attempt", at.getTime()),
        message_id: messageId,
        channel: a.channel,
        provider: a.provider,
        address: a.address,
        ok: a.ok,
        retryable: a.retryable,
        error: a.error,
        at,
      })),
    }),
    prisma.message.update({
      where: { id: messageId },
      data: { delivery_attempts: { increment: attempts.length } },
    }),
  ]);
}

/** The rows of the current run: the newest `delivery_attempts` rows (see delivery-run.ts). */
export async function runAttempts(
  prisma: PrismaClient,
  message: { id: string; delivery_attempts: number },
): Promise<StoredAttempt[]> {
  if (message.delivery_attempts === 0) return [];
  return prisma.deliveryAttempt.findMany({
    where: { message_id: message.id },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: message.delivery_attempts,
    select: { channel: true, ok: true, retryable: true, error: true, at: true },
  });
}

type Owned = Pick<MessageRow, "id" | "generation">;
const owned = (message: Owned) => ({
  id: message.id,
  generation: message.generation,
  status: "sending" as const,
});

export async function markFinal(
  prisma: PrismaClient,
  message: Owned,
  status: "failed" | "suppressed",
  reason: string,
  now: Date,
): Promise<boolean> {
  const { count } = await prisma.message.updateMany({
    where: owned(message),
    data: { status, status_reason: reason, lease_until: null, updated_at: now },
  });
  return count === 1;
}
