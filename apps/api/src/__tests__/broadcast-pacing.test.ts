import { setTimeout as sleep } from "node:timers/promises";
import { newId } from "@svc/core";
import { BROADCAST_CHUNK_SIZE, broadcastJobs } from "@svc/engine";
import { waitFor } from "@svc/testkit";
import { startHarness, type Harness } from "./service-harness";

// A chunk composes no faster than its worker delivers (docs/broadcasts.md "How it runs"): before
// each batch it waits for the worker's inline deliveries to have room. The chunk job runs here in
// the test, with a delivery room the test opens one batch at a time; no worker runs.

let h: Harness;
beforeAll(async () => {
  h = await startHarness("broadcast_pacing", {
    config: {
      channels: { email: { provider: "console" } },
      policy: { quiet_hours: { start: "00:00", end: "00:00" } },
    },
  });
  await h.prisma.template.create({ data: { key: "promo", locales: { en: { title: "Hi", body: "Sale" } } } });
}, 60_000);
afterAll(() => h?.close());

/** A gate per call of `deliverHere.room()`: each call waits until the test opens it. */
function gatedRoom() {
  const opens: (() => void)[] = [];
  const room = () => new Promise<void>((resolve) => opens.push(resolve));
  return { room, calls: () => opens.length, open: (call: number) => opens[call]!() };
}

const job = { attemptsMade: 0, attempts: 5 } as Parameters<
  ReturnType<typeof broadcastJobs>["send-broadcast-chunk"]
>[1];

test("a chunk composes its next batch only once delivery has room", async () => {
  const people = Array.from({ length: BROADCAST_CHUNK_SIZE }, (_, i) => ({
    id: newId("recipient"),
    external_id: `paced-${i}`,
  }));
  await h.prisma.recipient.createMany({ data: people });
  await h.prisma.address.createMany({
    data: people.map((p) => ({
      recipient_id: p.id,
      channel: "email",
      value: `${p.external_id}@example.com`,
    })),
  });
  const created = await h
    .as()
    .post("/v1/broadcasts")
    .send({
      name: "paced",
      template: "promo",
      category: "marketing",
      channels: ["email"],
      audience: { recipients: people.map((p) => p.external_id) },
    })
    .expect(201);
  const broadcastId = created.body.id as string;
  await h.as().post(`/v1/broadcasts/${broadcastId}/start`).expect(200);

  const gate = gatedRoom();
  const jobs = broadcastJobs({
    prisma: h.prisma,
    config: h.config,
    queues: h.queues,
    now: () => new Date(),
    // A delivery here that takes nothing (its deliveries go to Redis) and gates the room.
    deliverHere: { take: (items) => [...items], room: gate.room },
  });
  await jobs["plan-broadcast"]({ broadcastId, run: 1 }, job);
  const composed = () => h.prisma.message.count({ where: { broadcast_id: broadcastId } });

  const chunk = jobs["send-broadcast-chunk"]({ broadcastId, run: 1, position: 0 }, job);
  await sleep(300);
  // Waiting for room before the first batch: nothing composed yet.
  expect(gate.calls()).toBe(1);
  expect(await composed()).toBe(0);

  gate.open(0);
  await waitFor(() => gate.calls() === 2, { timeoutMs: 10_000, what: "the second wait for room" });
  await sleep(300);
  // One batch (100 people) composed, the second waits for room.
  expect(await composed()).toBe(100);
  expect(gate.calls()).toBe(2);

  gate.open(1);
  await waitFor(() => gate.calls() === 3, { timeoutMs: 10_000, what: "the third wait for room" });
  expect(await composed()).toBe(200);
  gate.open(2);
  expect(await chunk).toEqual({ result: "done", sent: BROADCAST_CHUNK_SIZE });
  expect(await composed()).toBe(BROADCAST_CHUNK_SIZE);
  expect(gate.calls()).toBe(3);
});
