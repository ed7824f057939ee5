import { claimDueMessages, loadRecheckFacts, writeSentMessages } from "@svc/store";
import { attemptsOf, makePerson, queuedMessage, startBench, type Bench } from "./delivery-fixtures";

// The batched claim and sent write against a real database: the same compare-and-set per row as
// the one-row forms, whatever else is in the batch.

// The lease runs out a minute after the claim.
const claimDueWithLease = (
  prisma: Bench["prisma"],
  requests: Parameters<typeof claimDueMessages>[1],
  now: Date,
  leaseSeconds: number,
) => claimDueMessages(prisma, requests, now, new Date(now.getTime() + leaseSeconds * 1000));

let bench: Bench;
beforeAll(async () => {
  bench = await startBench("delivery_batch_writes");
});
afterAll(() => bench.close());

const attempt = (address: string) => ({
  channel: "email",
  provider: "webhook",
  address,
  ok: true,
  retryable: false,
  error: null,
});

test("claimDueWithLease claims due queued rows of the job's generation once; returns rows as Prisma reads them", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "email", value: "claim@example.com" }]);
  const due = await queuedMessage(bench.prisma, person, { channels: ["email"] });
  const early = await queuedMessage(bench.prisma, person, {
    channels: ["email"],
    send_at: new Date(Date.now() + 60_000),
  });
  const sending = await queuedMessage(bench.prisma, person, {
    channels: ["email"],
    status: "sending",
    lease_until: new Date(Date.now() - 1),
  });
  const now = new Date();
  const rows = await claimDueWithLease(
    bench.prisma,
    [
      { messageId: due.id, generation: 0 },
      { messageId: due.id, generation: 0 }, // the same job twice: one claim
      { messageId: early.id, generation: 0 },
      { messageId: sending.id, generation: 0 },
      { messageId: "msg_missing", generation: 0 },
    ],
    now,
    60,
  );
  expect(rows.map((row) => row?.message.id ?? null)).toEqual([due.id, null, null, null, null]);
  expect(rows[0]!.message).toEqual(await bench.prisma.message.findUniqueOrThrow({ where: { id: due.id } }));
  expect(rows[0]!.message).toMatchObject({
    status: "sending",
    delivery_attempts: 0,
    lease_until: new Date(now.getTime() + 60_000),
  });
  // The re-check facts come with the claim, as loadRecheckFacts reads them.
  expect(rows[0]!.facts).toEqual((await loadRecheckFacts(bench.prisma, [rows[0]!.message]))[0]);
  // Another generation is left alone.
  expect(
    await claimDueWithLease(
      bench.prisma,
      [{ messageId: early.id, generation: 1 }],
      new Date(Date.now() + 120_000),
      60,
    ),
  ).toEqual([null]);
});

test("claimDueMessages reads each claimed row's re-check facts in the same statement", async () => {
  const person = await makePerson(
    bench.prisma,
    [
      { channel: "email", value: "facts@example.com" },
      { channel: "sms", value: "+15555550100", enabled: false },
    ],
    { unsubscribed_categories: ["marketing"], muted_channels: ["sms"] },
  );
  const mine = await queuedMessage(bench.prisma, person, { channels: ["email"], category: "transactional" });
  const agents = await queuedMessage(bench.prisma, person, {
    channels: ["email"],
    category: "transactional",
    agent_key: "no-such-agent",
  });
  const orphan = await queuedMessage(bench.prisma, person, {
    channels: ["email"],
    category: "no-such-category",
  });
  const now = new Date();
  const [a, b, c] = await claimDueWithLease(
    bench.prisma,
    [mine, agents, orphan].map((m) => ({ messageId: m.id, generation: 0 })),
    now,
    60,
  );
  expect(a!.facts).toEqual({
    recipient: {
      external_id: person.external_id,
      locale: null,
      timezone: null,
      region: null,
      unsubscribed_categories: ["marketing"],
      muted_channels: ["sms"],
      addresses: [
        { channel: "email", value: "facts@example.com", enabled: true },
        { channel: "sms", value: "+15555550100", enabled: false },
      ],
    },
    allowUnsubscribe: false,
    marketing: false,
    consentExpiresAt: null,
  });
  // An agent's message carries the agent's row (null: gone); the others have no `agent`.
  expect(b!.facts.agent).toBeNull();
  // A category deleted since: no flags to read, and said so (recheckFromFacts decides what that means).
  expect(c!.facts).toMatchObject({ allowUnsubscribe: null, marketing: null, consentExpiresAt: null });
  expect(c!.facts.recipient?.external_id).toBe(person.external_id);
  // The message part holds no fact column.
  expect(Object.keys(a!.message).some((column) => column.startsWith("rc_"))).toBe(false);
});

test("writeSentMessages: winners become sent (or delivered after an early receipt), losers keep their status; attempts are written for all", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "email", value: "sent@example.com" }]);
  const lease = { status: "sending" as const, lease_until: new Date(Date.now() + 60_000) };
  const plain = await queuedMessage(bench.prisma, person, { channels: ["email"], ...lease });
  const receipted = await queuedMessage(bench.prisma, person, { channels: ["email"], ...lease });
  await bench.prisma.engagement.create({
    data: { message_id: receipted.id, type: "delivered", source: "api" },
  });
  const movedOn = await queuedMessage(bench.prisma, person, { channels: ["email"], ...lease });
  await bench.prisma.message.update({ where: { id: movedOn.id }, data: { generation: 1 } });
  const probe = await queuedMessage(bench.prisma, person, {
    channels: ["email"],
    category: "marketing",
    ...lease,
  });
  await bench.prisma.fatigueState.create({
    data: { recipient_id: person.id, category: "marketing", probe_message_id: probe.id },
  });

  const at = new Date(Date.now() - 5);
  const sentAt = new Date();
  const write = (message: { id: string; generation: number }) => ({
    message,
    channel: "email",
    at,
    attempts: [attempt("sent@example.com")],
    sentAt,
  });
  const won = await writeSentMessages(bench.prisma, [
    write(plain),
    write(receipted),
    write(movedOn),
    write(probe),
  ]);
  expect(won.map((w) => w.won)).toEqual([true, true, false, true]);

  const row = (id: string) => bench.prisma.message.findUniqueOrThrow({ where: { id } });
  expect(await row(plain.id)).toMatchObject({
    status: "sent",
    channel: "email",
    sent_at: sentAt,
    lease_until: null,
    delivery_attempts: 1,
    delivered_at: null,
  });
  expect(await row(receipted.id)).toMatchObject({
    status: "delivered",
    sent_at: sentAt,
    delivered_at: sentAt,
    delivery_attempts: 1,
  });
  expect(await row(movedOn.id)).toMatchObject({
    status: "sending",
    generation: 1,
    sent_at: null,
    delivery_attempts: 1,
  });
  expect(await row(probe.id)).toMatchObject({ status: "sent" });
  expect(
    await bench.prisma.fatigueState.findUniqueOrThrow({
      where: { recipient_id_category: { recipient_id: person.id, category: "marketing" } },
    }),
  ).toMatchObject({
    probe_sent_at: sentAt,
  });
  for (const id of [plain.id, receipted.id, movedOn.id, probe.id])
    expect(await attemptsOf(bench.prisma, id)).toEqual([attempt("sent@example.com")]);
});

test("writeSentMessages: a message erased meanwhile writes nothing and does not fail the batch", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "email", value: "gone@example.com" }]);
  const kept = await queuedMessage(bench.prisma, person, { channels: ["email"], status: "sending" });
  const erased = await queuedMessage(bench.prisma, person, { channels: ["email"], status: "sending" });
  await bench.prisma.message.delete({ where: { id: erased.id } });
  const write = (message: { id: string; generation: number }) => ({
    message,
    channel: "email",
    at: new Date(),
    attempts: [attempt("gone@example.com")],
    sentAt: new Date(),
  });
  const results = await writeSentMessages(bench.prisma, [write(kept), write(erased)]);
  expect(results.map((r) => r.won)).toEqual([true, false]);
  expect(await bench.prisma.deliveryAttempt.count({ where: { message_id: erased.id } })).toBe(0);
});
