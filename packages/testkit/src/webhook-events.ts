import type { PrismaClient } from "@svc/store";

// Reading the webhook events a test's actions wrote (docs/outbox.md): the `webhook.event` entries
// still in the outbox, oldest first, optionally only those about one subject.

export interface WrittenWebhookEvent {
  type: string;
  occurred_at: string;
  subject: { kind: string; id: string };
  snapshot?: Record<string, unknown>;
}

export async function webhookEventsIn(
  prisma: PrismaClient,
  subjectId?: string,
): Promise<WrittenWebhookEvent[]> {
  const rows = await prisma.$queryRaw<{ payload: WrittenWebhookEvent }[]>`
    SELECT payload FROM outbox WHERE topic = 'webhook.event' ORDER BY id`;
  const events = rows.map((row) => row.payload);
  return subjectId === undefined ? events : events.filter((event) => event.subject.id === subjectId);
}
