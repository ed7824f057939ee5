import { bulkJobId } from "@svc/queue";
import { waitFor } from "@svc/testkit";
import { handOffJobs } from "../../shared/hand-off";
import { deliverMessageJob } from "../deliver-message-job";
import { inlineDelivery, type InlineDelivery } from "../inline-delivery";
import { makePerson, queuedMessage, startBench, type Bench } from "./delivery-fixtures";

// The jobs that compose hand their due deliveries to the process's own delivery (handOffJobs with
// `deliverHere`): they run here (no delivery job in Redis); everything else, and anything over the
// limit or failing, goes through the queue as before.

let bench: Bench;
beforeAll(async () => {
  bench = await startBench("delivery_inline");
});
afterAll(() => bench.close());

const quiet = { warn: () => undefined };
const handOff = (inline: InlineDelivery) => ({ queues: bench.queues, deliverHere: inline });
const deliveryJobs = () =>
  bench.queues.queue("delivery").getJobCountByTypes("waiting", "delayed", "active", "completed", "failed");

test("a due delivery is sent in the process: the message ends sent and no delivery job is added", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "sms", value: "+15550009001" }]);
  const message = await queuedMessage(bench.prisma, person, { channels: ["sms"] });
  const deliver = deliverMessageJob({ ...bench.deps, links: undefined, screen: undefined });
  const inline = inlineDelivery({
    deliver,
    queues: bench.queues,
    logger: quiet,
    now: () => new Date(),
    limit: 10,
  });
  await handOffJobs(handOff(inline), [
    {
      name: "deliver-message",
      payload: { messageId: message.id, generation: 0 },
      opts: { sendAt: message.send_at },
    },
  ]);
  await inline.drain();
  expect(await bench.prisma.message.findUniqueOrThrow({ where: { id: message.id } })).toMatchObject({
    status: "sent",
    channel: "sms",
  });
  expect(bench.hooks.to("+15550009001")).toHaveLength(1);
  expect(await deliveryJobs()).toBe(0);
});

test("later deliveries, other jobs and deliveries over the limit are left to enqueue, in input order", async () => {
  const started: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const deliver = async ({ messageId }: { messageId: string }) => {
    started.push(messageId);
    await held;
  };
  const inline = inlineDelivery({
    deliver,
    queues: bench.queues,
    logger: quiet,
    now: () => new Date(),
    limit: 1,
  });
  const later = new Date(Date.now() + 3_600_000);
  const rest = inline.take([
    { name: "deliver-message", payload: { messageId: "msg_LATER", generation: 0 }, opts: { sendAt: later } },
    { name: "deliver-message", payload: { messageId: "msg_NOW1", generation: 2 } },
    { name: "close-digest", payload: { digestId: "dig_INLINE" }, opts: { sendAt: later } },
    {
      name: "deliver-message",
      payload: { messageId: "msg_NOW2", generation: 0 },
      opts: { sendAt: new Date(Date.now() - 1) },
    },
  ]);
  expect(rest.map(bulkJobId)).toEqual(["msg_LATER-0", "dig_INLINE", "msg_NOW2-0"]);
  await bench.queues.enqueueBulk(rest);
  expect(started).toEqual(["msg_NOW1"]);
  expect(inline.inFlight).toBe(1);
  const delivery = bench.queues.queue("delivery");
  expect(await delivery.getJobState("msg_LATER-0")).toBe("delayed");
  expect(await delivery.getJobState("msg_NOW2-0")).toBe("waiting"); // over the limit of 1
  expect(await delivery.getJobState("msg_NOW1-2")).toBe("unknown");
  expect(await bench.queues.queue("digests").getJobState("dig_INLINE")).toBe("delayed");
  let drained = false;
  const draining = inline.drain().then(() => (drained = true));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(drained).toBe(false);
  release();
  await draining;
  expect(inline.inFlight).toBe(0);
  await delivery.obliterate({ force: true });
  await bench.queues.queue("digests").obliterate({ force: true });
});

test("a failing inline delivery falls back to the delivery job", async () => {
  const warnings: unknown[] = [];
  const inline = inlineDelivery({
    deliver: async () => {
      throw new Error("leased");
    },
    queues: bench.queues,
    logger: { warn: (...args: unknown[]) => warnings.push(args) },
    now: () => new Date(),
    limit: 5,
  });
  await handOffJobs(handOff(inline), [
    { name: "deliver-message", payload: { messageId: "msg_FALLBACK", generation: 1 } },
  ]);
  await inline.drain();
  expect(
    await waitFor(
      async () => (await bench.queues.queue("delivery").getJobState("msg_FALLBACK-1")) === "waiting" && true,
    ),
  ).toBe(true);
  expect(warnings).toEqual([
    ["inline delivery failed, enqueued", { message_id: "msg_FALLBACK", error: "leased" }],
  ]);
});

test("room() resolves at once with at most half the limit in flight, else once deliveries end down to half", async () => {
  const releases = new Map<string, () => void>();
  const deliver = ({ messageId }: { messageId: string }) =>
    new Promise<void>((resolve) => releases.set(messageId, resolve));
  const inline = inlineDelivery({
    deliver,
    queues: bench.queues,
    logger: quiet,
    now: () => new Date(),
    limit: 4,
  });
  const due = (n: number) => ({
    name: "deliver-message" as const,
    payload: { messageId: `msg_ROOM${n}`, generation: 0 },
  });
  await expect(inline.room()).resolves.toBeUndefined(); // nothing in flight
  await handOffJobs(handOff(inline), [due(1), due(2)]);
  await expect(inline.room()).resolves.toBeUndefined(); // 2 of 4: half
  await handOffJobs(handOff(inline), [due(3), due(4)]);
  expect(inline.inFlight).toBe(4);
  let roomy = 0;
  const waiting = [inline.room(), inline.room()].map((p) => p.then(() => roomy++));
  releases.get("msg_ROOM1")!();
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(roomy).toBe(0); // 3 in flight: still more than half
  releases.get("msg_ROOM2")!();
  await Promise.all(waiting);
  expect(roomy).toBe(2); // both waiters woke at 2 in flight
  releases.get("msg_ROOM3")!();
  releases.get("msg_ROOM4")!();
  await inline.drain();
  // All four ran here: none went to Redis.
  const delivery = bench.queues.queue("delivery");
  expect(await Promise.all([1, 2, 3, 4].map((n) => delivery.getJobState(`msg_ROOM${n}-0`)))).toEqual(
    Array(4).fill("unknown"),
  );
});
