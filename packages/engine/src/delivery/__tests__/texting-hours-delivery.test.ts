import type { JobName, JobPayload, EnqueueOptions } from "@svc/queue";
import { deliverMessage } from "../deliver-message";
import type { DeliveryDeps } from "../../shared/delivery-types";
import { attemptsOf, makePerson, queuedMessage, startBench, type Bench } from "./delivery-fixtures";

// Texting hours at delivery (docs/texting.md "At delivery"), with the real Postgres, Redis queue
// and webhook providers of the delivery bench, and a clock of its own. A Florida recipient
// (America/New_York) may get marketing texts 08:00-20:00. Monday 2030-06-10, EDT (UTC-4).

const MONDAY_2130 = new Date("2030-06-11T01:30:00Z"); // Monday 21:30 EDT
const TUESDAY_0800 = new Date("2030-06-11T12:00:00Z"); // Tuesday 08:00 EDT

let bench: Bench;
let clock: Date;
let deps: DeliveryDeps;
const enqueued: { name: JobName; payload: unknown; sendAt: Date | undefined }[] = [];

beforeAll(async () => {
  bench = await startBench("delivery_texting_hours"); // no worker: jobs stay in Redis
  deps = {
    ...bench.deps,
    now: () => clock,
    config: {
      ...bench.config,
      compliance: { us_texting_rules: true, sms_channels: ["sms"], unknown_state: "strict" },
    },
    queues: {
      async enqueue<N extends JobName>(name: N, payload: JobPayload<N>, opts?: EnqueueOptions) {
        enqueued.push({ name, payload, sendAt: opts?.sendAt });
        return bench.queues.enqueue(name, payload, opts);
      },
    },
  };
});
afterAll(() => bench.close());
beforeEach(() => {
  enqueued.length = 0;
  clock = MONDAY_2130;
});

let n = 0;
async function floridian(script: { email?: number[]; sms?: number[] } = {}) {
  n += 1;
  const email = `florida-${n}@example.com`;
  const sms = `+1305555${String(n).padStart(4, "0")}`;
  const person = await makePerson(bench.prisma, [
    { channel: "email", value: email },
    { channel: "sms", value: sms },
  ]);
  await bench.prisma.recipient.update({
    where: { id: person.id },
    data: { region: "US-FL", timezone: "America/New_York" },
  });
  if (script.email) bench.hooks.script(email, script.email);
  if (script.sms) bench.hooks.script(sms, script.sms);
  return { person, email, sms };
}

const row = (id: string) => bench.prisma.message.findUniqueOrThrow({ where: { id } });
const emailFails = (email: string) => ({
  channel: "email",
  provider: "webhook",
  address: email,
  ok: false,
  retryable: false,
  error: "webhook 400",
});
const smsSent = (sms: string) => ({
  channel: "sms",
  provider: "webhook",
  address: sms,
  ok: true,
  retryable: false,
  error: null,
});

test("e-mail fails at 21:30 in Florida: the fallback onto texts waits until 08:00, then sends the text only", async () => {
  const { person, email, sms } = await floridian({ email: [400] });
  const message = await queuedMessage(bench.prisma, person, {
    channels: ["email", "sms"],
    category: "marketing",
    send_at: new Date(MONDAY_2130.getTime() - 1000),
  });

  const outcome = await deliverMessage(deps, message.id, 0);
  expect(outcome).toEqual({ status: "scheduled", at: TUESDAY_0800, generation: 1 });
  expect(await row(message.id)).toMatchObject({
    status: "sending",
    generation: 1,
    send_at: TUESDAY_0800,
    lease_until: TUESDAY_0800,
    status_reason: null,
  });
  expect(await attemptsOf(bench.prisma, message.id)).toEqual([emailFails(email)]);
  expect(bench.hooks.to(sms)).toHaveLength(0);
  // The job of the next generation waits in Redis for 08:00.
  expect(enqueued).toEqual([
    { name: "deliver-message", payload: { messageId: message.id, generation: 1 }, sendAt: TUESDAY_0800 },
  ]);
  const job = await bench.queues.queue("delivery").getJob(`${message.id}-1`);
  expect(await job?.getState()).toBe("delayed");

  // A job that comes early (a sweep, a stale retry) finds the lease parked and leaves it.
  clock = new Date(TUESDAY_0800.getTime() - 60_000);
  await expect(deliverMessage(deps, message.id, 1)).rejects.toThrow(/leased until 2030-06-11T12:00:00.000Z/);

  // 08:00: the text goes; the e-mail, which failed for good, is not tried again.
  clock = TUESDAY_0800;
  expect(await deliverMessage(deps, message.id, 1)).toEqual({ status: "sent", channel: "sms" });
  expect(await row(message.id)).toMatchObject({ status: "sent", channel: "sms", lease_until: null });
  expect(await attemptsOf(bench.prisma, message.id)).toEqual([emailFails(email), smsSent(sms)]);
  expect(bench.hooks.to(email)).toHaveLength(1);
});

test.each([
  ["at 01:00", new Date("2030-06-11T05:00:00Z")],
  ["exactly at 08:00", TUESDAY_0800],
])("past expires_at (%s) it is suppressed as `expired` and never sends", async (_when, expiresAt) => {
  const { person, sms } = await floridian({ email: [400] });
  const message = await queuedMessage(bench.prisma, person, {
    channels: ["email", "sms"],
    category: "marketing",
    send_at: new Date(MONDAY_2130.getTime() - 1000),
    expires_at: expiresAt,
  });
  expect(await deliverMessage(deps, message.id, 0)).toEqual({ status: "suppressed", reason: "expired" });
  expect(await row(message.id)).toMatchObject({
    status: "suppressed",
    status_reason: "expired",
    generation: 0,
  });
  expect(bench.hooks.to(sms)).toHaveLength(0);
  expect(enqueued).toEqual([]);
});

test("a text channel first in line waits too, before any attempt", async () => {
  const { person, email, sms } = await floridian();
  const message = await queuedMessage(bench.prisma, person, {
    channels: ["sms", "email"],
    category: "marketing",
    send_at: new Date(MONDAY_2130.getTime() - 1000),
  });
  expect(await deliverMessage(deps, message.id, 0)).toEqual({
    status: "scheduled",
    at: TUESDAY_0800,
    generation: 1,
  });
  expect(await attemptsOf(bench.prisma, message.id)).toEqual([]);
  expect(bench.hooks.to(sms)).toHaveLength(0);
  expect(bench.hooks.to(email)).toHaveLength(0);
});

test("a retry that lands after 20:00 waits for 08:00 instead of texting at night", async () => {
  const { person, sms } = await floridian({ sms: [503, 200] });
  clock = new Date("2030-06-10T23:59:00Z"); // Monday 19:59 EDT
  const message = await queuedMessage(bench.prisma, person, {
    channels: ["sms"],
    category: "marketing",
    send_at: new Date(clock.getTime() - 1000),
  });
  expect(await deliverMessage(deps, message.id, 0)).toMatchObject({ status: "scheduled", generation: 1 });
  clock = new Date("2030-06-11T00:01:00Z"); // the retry runs at 20:01
  expect(await deliverMessage(deps, message.id, 1)).toEqual({
    status: "scheduled",
    at: TUESDAY_0800,
    generation: 2,
  });
  expect(bench.hooks.to(sms)).toHaveLength(1);
  clock = TUESDAY_0800;
  expect(await deliverMessage(deps, message.id, 2)).toEqual({ status: "sent", channel: "sms" });
  expect(bench.hooks.to(sms)).toHaveLength(2);
});

test.each<[string, { category?: string; region?: string | null; rulesOff?: boolean }]>([
  ["a transactional text", { category: "transactional" }],
  ["a recipient outside the US", { region: "CA" }],
  ["texting rules switched off", { rulesOff: true }],
])("%s goes out at 21:30", async (_why, over) => {
  const { person, sms } = await floridian({ email: [400] });
  if (over.region !== undefined)
    await bench.prisma.recipient.update({ where: { id: person.id }, data: { region: over.region } });
  const message = await queuedMessage(bench.prisma, person, {
    channels: ["email", "sms"],
    category: over.category ?? "marketing",
    send_at: new Date(MONDAY_2130.getTime() - 1000),
  });
  const rules = over.rulesOff
    ? {
        ...deps,
        config: { ...deps.config, compliance: { ...deps.config.compliance, us_texting_rules: false } },
      }
    : deps;
  expect(await deliverMessage(rules, message.id, 0)).toEqual({ status: "sent", channel: "sms" });
  expect(bench.hooks.to(sms)).toHaveLength(1);
});
