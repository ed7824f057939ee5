import { reclaimLeasesSweep } from "../delivery-sweeps";
import { DeliveryClaimMayHaveLapsedError, deliverMessage } from "../deliver-message";
import { makePerson, queuedMessage, startBench, type Bench } from "./delivery-fixtures";

// docs/operations.md "Recovery guarantees": a claim's lease is short and renewed while its send
// runs. A provider slower than the lease keeps its claim (no second send); a claim nobody renews
// (its worker died) is taken back by the reclaim sweep once the lease ran out.

let bench: Bench;
beforeAll(async () => {
  bench = await startBench("lease_heartbeat", { lease_seconds: 1 });
});
afterAll(() => bench.close());

const sweep = () =>
  reclaimLeasesSweep({ prisma: bench.prisma, queues: bench.queues }).run({
    sweep: "reclaim-leases",
    now: new Date(),
  });

test("a send slower than the lease keeps its claim: renewed, never reclaimed, sent once", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "sms", value: "+15550009001" }]);
  bench.hooks.slow("+15550009001", 2_600);
  const message = await queuedMessage(bench.prisma, person, { channels: ["sms"] });
  const delivering = deliverMessage(bench.deps, message.id, message.generation);

  const leases: number[] = [];
  const reclaimed: unknown[] = [];
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 550));
    const row = await bench.prisma.message.findUniqueOrThrow({ where: { id: message.id } });
    if (row.status !== "sending") break;
    leases.push(row.lease_until!.getTime());
    reclaimed.push(await sweep());
  }
  await expect(delivering).resolves.toEqual({ status: "sent", channel: "sms" });
  // Renewed past the first lease (claimed + 1 s) while the provider was still answering.
  expect(leases.length).toBeGreaterThanOrEqual(3);
  expect(Math.max(...leases)).toBeGreaterThan(message.created_at.getTime() + 1_500);
  expect(reclaimed).toEqual(leases.map(() => ({ found: 0, jobIds: [] })));
  expect(bench.hooks.to("+15550009001")).toHaveLength(1);
  const row = await bench.prisma.message.findUniqueOrThrow({ where: { id: message.id } });
  expect(row).toMatchObject({ status: "sent", generation: message.generation, lease_until: null });
});

test("a claim nobody renews (a dead worker's) is reclaimed once its lease ran out", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "sms", value: "+15550009002" }]);
  const leaseUntil = new Date(Date.now() + 1_000);
  const message = await queuedMessage(bench.prisma, person, {
    channels: ["sms"],
    status: "sending",
    lease_until: leaseUntil,
  });
  await expect(sweep()).resolves.toEqual({ found: 0, jobIds: [] });
  await new Promise((resolve) => setTimeout(resolve, leaseUntil.getTime() - Date.now() + 50));
  await expect(sweep()).resolves.toEqual({ found: 1, jobIds: [`${message.id}-${message.generation + 1}`] });
});

// docs/operations.md "A claim that may have lapsed": a run that stalled (here: its clock jumps 25 s
// between two channels, as a paused process sees it) with no renewal in between must not start a
// send, because another worker may take the claim over and send as well.
describe("a run whose lease may have lapsed", () => {
  let fence: Bench;
  beforeAll(async () => {
    fence = await startBench("lease_fence", { lease_seconds: 30 });
  });
  afterAll(() => fence.close());

  test("sends nothing more, keeps the claim for the retry, and the retry sends once", async () => {
    const person = await makePerson(fence.prisma, [
      { channel: "sms", value: "+15550009003" },
      { channel: "email", value: "fence@example.com" },
    ]);
    fence.hooks.script("+15550009003", [400]);
    fence.hooks.slow("+15550009003", 300);
    const message = await queuedMessage(fence.prisma, person, { channels: ["sms", "email"] });
    let stalledMs = 0;
    const deps = { ...fence.deps, now: () => new Date(Date.now() + stalledMs) };
    const delivering = deliverMessage(deps, message.id, message.generation);
    while (fence.hooks.to("+15550009003").length === 0) await new Promise((r) => setTimeout(r, 10));
    stalledMs = 25_000;

    await expect(delivering).rejects.toBeInstanceOf(DeliveryClaimMayHaveLapsedError);
    expect(fence.hooks.to("fence@example.com")).toHaveLength(0);
    const row = await fence.prisma.message.findUniqueOrThrow({ where: { id: message.id } });
    expect(row).toMatchObject({ status: "sending", generation: message.generation, delivery_attempts: 1 });

    // The job's retry after the lease ran out takes the claim over and goes on with email.
    stalledMs = 31_000;
    await expect(deliverMessage(deps, message.id, message.generation)).resolves.toEqual({
      status: "sent",
      channel: "email",
    });
    expect(fence.hooks.to("fence@example.com")).toHaveLength(1);
    expect(fence.hooks.to("+15550009003")).toHaveLength(1);
  });
});
