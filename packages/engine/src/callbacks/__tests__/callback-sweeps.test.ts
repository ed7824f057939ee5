import { claimCallbackDelivery } from "@svc/store";
import { deleteKeysStartingWith, waitFor } from "@svc/testkit";
import { callbackTryJobId } from "../callback-retry";
import { requeueCallbacksSweep } from "../callback-sweeps";
import { startCallbackBench, type CallbackBench } from "./callback-fixtures";

// The row is the truth: whatever Redis lost (the job after a decision's commit, a whole emptied
// Redis, the job of a worker killed mid-send), the requeue-callbacks sweep brings back, and the
// callback is delivered once more with the same body and Idempotency-Key.

let bench: CallbackBench;

beforeAll(async () => {
  bench = await startCallbackBench("callback_sweeps", { retryBaseMs: 2_000, leaseMs: 800 });
  bench.startWorker();
});
afterAll(() => bench.close());
beforeEach(() => bench.receiver.reset());

const row = (id: string) => bench.prisma.callbackDelivery.findUniqueOrThrow({ where: { id } });
const delivered = (id: string) =>
  waitFor(async () => ((await row(id)).status === "delivered" ? row(id) : null), {
    timeoutMs: 8000,
    what: `callback ${id} delivered`,
  });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sweepAt = (now: Date, graceMs = 0) =>
  requeueCallbacksSweep(bench, { graceMs }).run({ sweep: "requeue-callbacks", now });

test("a callback whose job never reached Redis (crash after the decision's commit) is sent once it is overdue", async () => {
  const id = await bench.decide({}, { enqueue: false });
  const { next_attempt_at: due } = await row(id);
  const sweep = requeueCallbacksSweep(bench);
  expect(sweep).toMatchObject({ name: "requeue-callbacks", every: 15_000 });
  // Within the 10 s grace the callback's own job may still come: left alone.
  await expect(sweep.run({ sweep: sweep.name, now: new Date(due!.getTime() + 9_000) })).resolves.toEqual({
    found: 0,
    jobIds: [],
  });
  const jobId = callbackTryJobId(id, due!, { sweep: true });
  const later = new Date(due!.getTime() + 11_000);
  await expect(sweep.run({ sweep: sweep.name, now: later })).resolves.toEqual({ found: 1, jobIds: [jobId] });
  expect(await delivered(id)).toMatchObject({ attempts: 1 });
  expect(bench.receiver.posts).toHaveLength(1);
});

test("Redis emptied while a callback waits for its retry: the sweep brings it back and it is delivered", async () => {
  bench.receiver.answer(500, 200);
  const id = await bench.decide();
  const waiting = await waitFor(async () => {
    const r = await row(id);
    return r.attempts === 1 ? r : null;
  });
  expect(waiting).toMatchObject({ status: "pending", last_error: "callback 500" });
  const retryJob = callbackTryJobId(id, waiting.next_attempt_at!);
  const callbacks = bench.queues.queue("callbacks");
  expect(await callbacks.getJobState(retryJob)).toBe("delayed");

  expect(await deleteKeysStartingWith(bench.redis.redisUrl, `${bench.redis.prefix}:`)).toBeGreaterThan(0);
  expect(await callbacks.getJob(retryJob)).toBeUndefined();
  // Nothing happens on its own: the retry's job is gone.
  await sleep(Math.max(0, waiting.next_attempt_at!.getTime() - Date.now()) + 300);
  expect(await row(id)).toMatchObject({ status: "pending", attempts: 1 });
  expect(bench.receiver.posts).toHaveLength(1);

  const swept = await sweepAt(new Date());
  expect(swept).toEqual({
    found: 1,
    jobIds: [callbackTryJobId(id, waiting.next_attempt_at!, { sweep: true })],
  });
  expect(await delivered(id)).toMatchObject({ attempts: 2 });
  const [first, second] = bench.receiver.posts;
  expect(bench.receiver.posts).toHaveLength(2);
  expect(second!.raw.equals(first!.raw)).toBe(true);
  expect(second!.headers["idempotency-key"]).toBe(id);
  expect(first!.headers["idempotency-key"]).toBe(id);
});

test("a worker that died mid-send: once its claim's lease ran out, the sweep hands the callback to another try", async () => {
  const id = await bench.decide({}, { enqueue: false });
  // What a killed worker leaves: the row claimed (its lease), no outcome written, no job.
  const now = new Date();
  expect(await claimCallbackDelivery(bench.prisma, id, now, new Date(now.getTime() + 800))).not.toBeNull();
  await expect(sweepAt(new Date())).resolves.toEqual({ found: 0, jobIds: [] });
  const leased = await row(id);
  await sleep(leased.next_attempt_at!.getTime() - Date.now() + 50);
  await expect(sweepAt(new Date())).resolves.toMatchObject({ found: 1 });
  expect(await delivered(id)).toMatchObject({ attempts: 1 });
  expect(bench.receiver.posts).toHaveLength(1);
});

test("sweeping twice before the job runs adds one job", async () => {
  const id = await bench.decide({}, { enqueue: false });
  await bench.prisma.callbackDelivery.update({
    where: { id },
    data: { next_attempt_at: new Date(Date.now() - 60_000) },
  });
  const [a, b] = await Promise.all([sweepAt(new Date()), sweepAt(new Date())]);
  expect(a).toEqual(b);
  expect(await delivered(id)).toMatchObject({ attempts: 1 });
  expect(bench.receiver.posts).toHaveLength(1);
});
