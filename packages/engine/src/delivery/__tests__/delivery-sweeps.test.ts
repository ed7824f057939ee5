import type { Sweep } from "@svc/queue";
import { waitFor } from "@svc/testkit";
import { expireQueuedSweep, reclaimLeasesSweep, requeueDueSweep } from "../delivery-sweeps";
import { attemptsOf, makePerson, queuedMessage, startBench, type Bench } from "./delivery-fixtures";

// Sweeps against a real database, Redis and worker: nothing stays stranded, and bumped generations
// turn older jobs into no-ops so each message is sent once.

let bench: Bench;

beforeAll(async () => {
  bench = await startBench("delivery_sweeps");
  bench.startWorker();
});
afterAll(() => bench.close());

const run = (sweep: Sweep) => sweep.run({ sweep: sweep.name, now: new Date() });

async function settled(id: string) {
  return waitFor(
    async () => {
      const row = await bench.prisma.message.findUniqueOrThrow({ where: { id } });
      return ["sent", "failed", "suppressed"].includes(row.status) ? row : null;
    },
    { timeoutMs: 8000 },
  );
}

test("expire-queued: queued past expires_at becomes suppressed / expired; others stay", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "email", value: "expire@example.com" }]);
  const later = new Date(Date.now() + 3_600_000);
  const expired = await queuedMessage(bench.prisma, person, {
    channels: ["email"],
    send_at: later,
    expires_at: new Date(Date.now() - 1),
  });
  const alive = await queuedMessage(bench.prisma, person, {
    channels: ["email"],
    send_at: later,
    expires_at: new Date(Date.now() + 7_200_000),
  });
  await expect(run(expireQueuedSweep(bench))).resolves.toEqual({ expired: 1 });
  expect(await bench.prisma.message.findUniqueOrThrow({ where: { id: expired.id } })).toMatchObject({
    status: "suppressed",
    status_reason: "expired",
  });
  expect(await bench.prisma.message.findUniqueOrThrow({ where: { id: alive.id } })).toMatchObject({
    status: "queued",
    status_reason: null,
  });
});

test("reclaim-leases: a `sending` row whose worker died is delivered once; the old job is a no-op", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "email", value: "lease@example.com" }]);
  const stranded = await queuedMessage(bench.prisma, person, {
    channels: ["email"],
    status: "sending",
    lease_until: new Date(Date.now() - 1000),
  });
  const held = await queuedMessage(bench.prisma, person, {
    channels: ["email"],
    status: "sending",
    lease_until: new Date(Date.now() + 60_000),
  });
  await expect(run(reclaimLeasesSweep(bench))).resolves.toEqual({ found: 1, jobIds: [`${stranded.id}-1`] });
  // The killed worker's job (generation 0) comes back after the takeover: it must not send again.
  await bench.queues.enqueue("deliver-message", { messageId: stranded.id, generation: 0 });
  expect(await settled(stranded.id)).toMatchObject({ status: "sent", channel: "email", generation: 1 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(bench.hooks.to("lease@example.com")).toHaveLength(1);
  expect(await attemptsOf(bench.prisma, stranded.id)).toHaveLength(1);
  // A live lease is left to its worker.
  expect(await bench.prisma.message.findUniqueOrThrow({ where: { id: held.id } })).toMatchObject({
    status: "sending",
    generation: 0,
  });
});

test("requeue-due: a queued message whose job never reached Redis is sent; recent ones are left to their job", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "email", value: "due@example.com" }]);
  const lost = await queuedMessage(bench.prisma, person, {
    channels: ["email"],
    send_at: new Date(Date.now() - 120_000),
  });
  const recent = await queuedMessage(bench.prisma, person, {
    channels: ["email"],
    send_at: new Date(Date.now() + 3_600_000),
  });
  await expect(run(requeueDueSweep(bench))).resolves.toEqual({ found: 1, jobIds: [`${lost.id}-1`] });
  expect(await settled(lost.id)).toMatchObject({ status: "sent", generation: 1 });
  expect(bench.hooks.to("due@example.com")).toHaveLength(1);
  expect(await bench.prisma.message.findUniqueOrThrow({ where: { id: recent.id } })).toMatchObject({
    status: "queued",
    generation: 0,
  });
});
