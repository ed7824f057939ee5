/**
 * The cost of webhook events on the delivery hot path (docs/decisions.md "Webhook events: where
 * they are written"): the batched `sent` write (writeSentMessages) of 50 messages, with and
 * without the `webhook.event` entries it inserts in the same statement, alternating, ROUNDS times
 * (default 150). Run: `npm run bench:sent-write-webhooks`.
 */
import { newId } from "@svc/core";
import { Prisma, writeSentMessages } from "@svc/store";
import { createTestDatabase } from "@svc/testkit";
import { messageEmission, webhookPayload, WEBHOOK_EVENT_TOPIC } from "@svc/engine";

async function main() {
  const db = await createTestDatabase("bench_sent_write_webhooks");
  const person = await db.prisma.recipient.create({ data: { id: newId("recipient"), external_id: "p" } });
  const N = 50;
  const ROUNDS = Number(process.env.ROUNDS ?? 150);
  const make = async () => {
    const rows = Array.from({ length: N }, () => ({
      id: newId("message"),
      recipient_id: person.id,
      recipient_external_id: "p",
      sender: "backend",
      category: "news",
      template: "tpl",
      importance: "normal" as const,
      claimed_importance: "normal" as const,
      channels: ["email"],
      content: Prisma.DbNull,
      send_at: new Date(),
      link_nonce: "n",
      status: "sending" as const,
    }));
    await db.prisma.message.createMany({ data: rows });
    return rows;
  };
  const times: Record<string, number[]> = { without: [], with: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const mode of r % 2 ? ["with", "without"] : ["without", "with"]) {
      const rows = await make();
      const now = new Date();
      const writes = rows.map((m) => ({
        message: { id: m.id, generation: 0 },
        channel: "email",
        at: now,
        sentAt: now,
        attempts: [
          { channel: "email", provider: "console", address: "a", ok: true, retryable: false, error: null },
        ],
        ...(mode === "with"
          ? {
              outbox: {
                topic: WEBHOOK_EVENT_TOPIC,
                sent: webhookPayload(
                  messageEmission("message.sent", { id: m.id, status: "sent", status_reason: null }, now),
                ),
                delivered: webhookPayload(
                  messageEmission(
                    "message.delivered",
                    { id: m.id, status: "delivered", status_reason: null },
                    now,
                  ),
                ),
              },
            }
          : {}),
      }));
      const t = process.hrtime.bigint();
      await writeSentMessages(db.prisma, writes);
      times[mode]!.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  for (const k of ["without", "with"])
    console.log(k, "median ms/batch of 50:", med(times[k]!).toFixed(2), "mean:", mean(times[k]!).toFixed(2));
  console.log("outbox rows:", await db.prisma.outboxEntry.count());
  await db.drop();
}
void main();
