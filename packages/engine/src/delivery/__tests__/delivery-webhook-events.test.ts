import { waitFor, webhookEventsIn } from "@svc/testkit";
import { writeSentMessages } from "@svc/store";
import { makePerson, queuedMessage, startBench, type Bench } from "./delivery-fixtures";

// The webhook events of a delivery run (docs/webhooks.md): written in the statement that makes the
// final change, exactly one per change (two when a delivered report overtook the send), none for a
// retry being scheduled or a write that lost its lease.

let bench: Bench;

beforeAll(async () => {
  bench = await startBench("delivery_webhook_events");
  bench.startWorker();
});
afterAll(() => bench.close());

async function deliverAndWait(message: { id: string; generation: number }) {
  await bench.queues.enqueue("deliver-message", { messageId: message.id, generation: message.generation });
  return waitFor(
    async () => {
      const row = await bench.prisma.message.findUniqueOrThrow({ where: { id: message.id } });
      return ["sent", "delivered", "failed", "suppressed"].includes(row.status) ? row : null;
    },
    { timeoutMs: 8000, what: `message ${message.id} final` },
  );
}

const iso = (d: Date | null) => d!.toISOString();

test("sent after a retry: one message.sent with the status frozen, nothing for the retry", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "sms", value: "+15550001001" }]);
  bench.hooks.script("+15550001001", [503, 200]);
  const message = await queuedMessage(bench.prisma, person, { channels: ["sms"] });
  const row = await deliverAndWait(message);
  expect(row.status).toBe("sent");
  expect(await webhookEventsIn(bench.prisma, message.id)).toEqual([
    {
      type: "message.sent",
      occurred_at: iso(row.sent_at),
      subject: { kind: "message", id: message.id },
      snapshot: { status: "sent", status_reason: null },
    },
  ]);
});

test("a permanent failure: one message.failed with its reason", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "sms", value: "+15550001002" }]);
  bench.hooks.script("+15550001002", [400]);
  const message = await queuedMessage(bench.prisma, person, { channels: ["sms"] });
  const row = await deliverAndWait(message);
  expect(row.status).toBe("failed");
  expect(await webhookEventsIn(bench.prisma, message.id)).toEqual([
    {
      type: "message.failed",
      occurred_at: iso(row.updated_at),
      subject: { kind: "message", id: message.id },
      snapshot: { status: "failed", status_reason: row.status_reason },
    },
  ]);
  expect(row.status_reason).toBe("webhook 400");
});

test("suppressed at the re-check: one message.suppressed with its reason", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "sms", value: "+15550001003" }]);
  const message = await queuedMessage(bench.prisma, person, {
    channels: ["sms"],
    expires_at: new Date(Date.now() - 1),
  });
  const row = await deliverAndWait(message);
  expect(row).toMatchObject({ status: "suppressed", status_reason: "expired" });
  expect(await webhookEventsIn(bench.prisma, message.id)).toEqual([
    {
      type: "message.suppressed",
      occurred_at: iso(row.updated_at),
      subject: { kind: "message", id: message.id },
      snapshot: { status: "suppressed", status_reason: "expired" },
    },
  ]);
  expect(bench.hooks.to("+15550001003")).toHaveLength(0);
});

describe("the batched sent write", () => {
  const outboxOf = (id: string) => ({
    topic: "webhook.event",
    sent: { type: "message.sent", subject: { kind: "message", id } },
    delivered: { type: "message.delivered", subject: { kind: "message", id } },
  });
  const sending = async (address: string) => {
    const person = await makePerson(bench.prisma, [{ channel: "email", value: address }]);
    return queuedMessage(bench.prisma, person, { channels: ["email"], status: "sending" });
  };
  const write = (message: { id: string; generation: number }) => ({
    message,
    channel: "email",
    at: new Date(),
    attempts: [],
    sentAt: new Date(),
    outbox: outboxOf(message.id),
  });

  test("writes sent's entry for a winner, sent's and delivered's when a report overtook it, none for a loser", async () => {
    const plain = await sending("plain@example.com");
    const overtaken = await sending("overtaken@example.com");
    const lost = await sending("lost@example.com");
    await bench.prisma.engagement.create({
      data: { message_id: overtaken.id, type: "delivered", source: "test", created_at: new Date() },
    });
    const results = await writeSentMessages(bench.prisma, [
      write(plain),
      write(overtaken),
      write({ id: lost.id, generation: lost.generation + 1 }),
    ]);
    expect(results.map((r) => r.won)).toEqual([true, true, false]);
    expect(await webhookEventsIn(bench.prisma, plain.id)).toEqual([outboxOf(plain.id).sent]);
    expect(await webhookEventsIn(bench.prisma, overtaken.id)).toEqual([
      outboxOf(overtaken.id).sent,
      outboxOf(overtaken.id).delivered,
    ]);
    expect(await webhookEventsIn(bench.prisma, lost.id)).toEqual([]);
  });

  test("a write without outbox entries writes none", async () => {
    const message = await sending("none@example.com");
    const { outbox: _none, ...plain } = write(message);
    expect((await writeSentMessages(bench.prisma, [plain]))[0]!.won).toBe(true);
    expect(await webhookEventsIn(bench.prisma, message.id)).toEqual([]);
  });
});
