import { waitFor } from "@svc/testkit";
import { enqueueFollowUps } from "../../ingest/follow-ups";
import { handOffJobs } from "../../shared/hand-off";
import { deliverMessageJob, deliverMessagesJob } from "../deliver-message-job";
import { DELIVERY_BATCH } from "../delivery-jobs";
import { inlineDelivery } from "../inline-delivery";
import { makePerson, queuedMessage, startBench, type Bench } from "./delivery-fixtures";

// `deliver-messages`: the messages one ingest batch queued for now travel as one job (or run
// inline), each delivered as by its own job; a retry re-runs only what has not moved on.

let bench: Bench;
beforeAll(async () => {
  bench = await startBench("delivery_batch");
});
afterAll(() => bench.close());

const quiet = { warn: () => undefined };
const context = {
  id: "j",
  name: "deliver-messages" as const,
  queue: "delivery" as const,
  attemptsMade: 0,
  attempts: 8,
};

async function queuedFor(phones: string[]) {
  const messages = [];
  for (const phone of phones) {
    const person = await makePerson(bench.prisma, [{ channel: "sms", value: phone }]);
    messages.push(await queuedMessage(bench.prisma, person, { channels: ["sms"] }));
  }
  return messages;
}

test("follow-ups: deliveries due now share one deliver-messages job; later ones wait as their own delayed job", async () => {
  const now = new Date();
  const later = new Date(now.getTime() + 3_600_000);
  const due = Array.from({ length: DELIVERY_BATCH + 2 }, (_, i) => ({
    messageId: `msg_DUE${i}`,
    generation: 0,
    sendAt: now,
  }));
  await enqueueFollowUps(
    { queues: bench.queues },
    {
      deliveries: [...due, { messageId: "msg_LATER", generation: 1, sendAt: later }],
      digests: [],
      notices: [],
    },
    now,
  );
  const delivery = bench.queues.queue("delivery");
  const jobs = await delivery.getJobs(["waiting", "delayed"]);
  expect(jobs.map((j) => [j.id, j.name, j.data.messages?.length ?? null]).sort()).toEqual([
    ["msg_DUE0-0-batch", "deliver-messages", DELIVERY_BATCH],
    [`msg_DUE${DELIVERY_BATCH}-0-batch`, "deliver-messages", 2],
    ["msg_LATER-1", "deliver-message", null],
  ]);
  expect(await delivery.getJobState("msg_LATER-1")).toBe("delayed");
  await delivery.obliterate({ force: true });
});

test("a deliver-messages job sends each message; run again, it sends nothing twice", async () => {
  const messages = await queuedFor(["+15550007001", "+15550007002", "+15550007003"]);
  const handler = deliverMessagesJob(
    deliverMessageJob({ ...bench.deps, links: undefined, screen: undefined }),
  );
  const payload = { messages: messages.map((m) => ({ messageId: m.id, generation: m.generation })) };
  expect(await handler(payload, context)).toEqual({ delivered: 3 });
  const rows = await bench.prisma.message.findMany({ where: { id: { in: messages.map((m) => m.id) } } });
  expect(rows.map((r) => r.status)).toEqual(["sent", "sent", "sent"]);
  expect(await handler(payload, context)).toEqual({ delivered: 3 });
  for (const phone of ["+15550007001", "+15550007002", "+15550007003"])
    expect(bench.hooks.to(phone)).toHaveLength(1);
});

test("one message throwing fails the job with its id; the others are sent, and the retry sends only it", async () => {
  const messages = await queuedFor(["+15550007011", "+15550007012"]);
  const real = deliverMessageJob({ ...bench.deps, links: undefined, screen: undefined });
  let broken = true;
  const handler = deliverMessagesJob(async (payload, job) => {
    if (broken && payload.messageId === messages[1]!.id) throw new Error("database busy");
    return real(payload, job);
  });
  const payload = { messages: messages.map((m) => ({ messageId: m.id, generation: m.generation })) };
  await expect(handler(payload, context)).rejects.toThrow(
    `1 of 2 deliveries failed (${messages[1]!.id}: database busy)`,
  );
  expect((await bench.prisma.message.findUniqueOrThrow({ where: { id: messages[0]!.id } })).status).toBe(
    "sent",
  );
  expect((await bench.prisma.message.findUniqueOrThrow({ where: { id: messages[1]!.id } })).status).toBe(
    "queued",
  );
  broken = false;
  await handler(payload, context);
  expect(bench.hooks.to("+15550007011")).toHaveLength(1);
  expect(bench.hooks.to("+15550007012")).toHaveLength(1);
});

test("inline: a due batch runs in the process up to the limit; the rest goes to Redis as one job", async () => {
  const started: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const inline = inlineDelivery({
    deliver: async ({ messageId }) => {
      started.push(messageId);
      await held;
    },
    queues: bench.queues,
    logger: quiet,
    now: () => new Date(),
    limit: 2,
  });
  const batch = ["msg_IN1", "msg_IN2", "msg_IN3", "msg_IN4"].map((messageId) => ({
    messageId,
    generation: 0,
  }));
  await handOffJobs({ queues: bench.queues, deliverHere: inline }, [
    { name: "deliver-messages", payload: { messages: batch } },
    {
      name: "deliver-messages",
      payload: {
        messages: [
          { messageId: "msg_IN5", generation: 0 },
          { messageId: "msg_IN6", generation: 0 },
        ],
      },
    },
  ]);
  expect(started).toEqual(["msg_IN1", "msg_IN2"]);
  const delivery = bench.queues.queue("delivery");
  const jobs = await delivery.getJobs(["waiting"]);
  expect(jobs.map((j) => [j.id, j.data]).sort()).toEqual([
    ["msg_IN3-0-batch", { messages: [batch[2], batch[3]] }],
    [
      "msg_IN5-0-batch",
      {
        messages: [
          { messageId: "msg_IN5", generation: 0 },
          { messageId: "msg_IN6", generation: 0 },
        ],
      },
    ],
  ]);
  release();
  await inline.drain();
  await delivery.obliterate({ force: true });
});

test("a deliver-messages job run by the worker ends every message sent", async () => {
  bench.startWorker();
  const messages = await queuedFor(["+15550007021", "+15550007022"]);
  await bench.queues.enqueueBulk([
    {
      name: "deliver-messages",
      payload: { messages: messages.map((m) => ({ messageId: m.id, generation: 0 })) },
    },
  ]);
  await waitFor(
    async () =>
      (await bench.prisma.message.count({
        where: { id: { in: messages.map((m) => m.id) }, status: "sent" },
      })) === 2,
    { what: "both sent" },
  );
});
