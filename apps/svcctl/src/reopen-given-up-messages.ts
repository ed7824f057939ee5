import { REASON_CODE } from "@svc/core";
import type { Queues } from "@svc/queue";
import {
  findFailedMessages,
  refailReopenedMessage,
  reopenFailedMessages,
  type RootDatabase,
} from "@svc/store";

// `svcctl jobs retry-dead` also reopens messages that ended `failed` with `gave up: …` (delivery
// used up its attempts; docs/svcctl.md). Each goes back to `queued` under a new generation,
// so its delivery job id (`<message id>-<generation>`) is new and BullMQ cannot swallow the add.

export const GAVE_UP_PREFIX = `${REASON_CODE.gaveUp}: `;

export interface ReopenGivenUpMessagesOptions {
  /** Messages reopened per round (one UPDATE, one bulk enqueue). */
  batchSize?: number;
}

export async function reopenGivenUpMessages(
  { prisma, queues, now }: { prisma: RootDatabase; queues: Pick<Queues, "enqueueBulk">; now: () => Date },
  options: ReopenGivenUpMessagesOptions = {},
): Promise<{ reopened: number }> {
  const batchSize = options.batchSize ?? 500;
  let reopened = 0;
  for (;;) {
    const batch = await findFailedMessages(prisma, GAVE_UP_PREFIX, batchSize);
    if (batch.length === 0) return { reopened };
    // Compare-and-set: a message someone else moved on meanwhile is left alone.
    const rows = await reopenFailedMessages(
      prisma,
      batch.map((row) => row.id),
      GAVE_UP_PREFIX,
      now(),
    );
    try {
      await queues.enqueueBulk(
        rows.map((row) => ({
          name: "deliver-message" as const,
          payload: { messageId: row.id, generation: row.generation },
          opts: { sendAt: row.send_at },
        })),
      );
    } catch (error) {
      // Without its job a queued message would wait for a sweep; put it back so a rerun finds it.
      const reasons = new Map(batch.map((row) => [row.id, row.status_reason]));
      for (const row of rows) {
        await refailReopenedMessage(
          prisma,
          { id: row.id, generation: row.generation, reason: reasons.get(row.id) ?? null },
          now(),
        );
      }
      throw error;
    }
    reopened += rows.length;
  }
}
