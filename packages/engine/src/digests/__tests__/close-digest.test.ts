import { $transaction } from "@svc/store";
import { composeMessage } from "../../compose/compose-message";
import { listMessages } from "../../messages/list-messages";
import {
  closeDigestJob,
  closeDigestJobIds,
  closeDueDigestsSweep,
  DUE_DIGEST_GRACE_MS,
} from "../close-digest-job";
import {
  digestPolicy,
  makeDigestRule,
  makeRecipient,
  makeTemplate,
  NOW,
  openDigestOf,
  startDigestWorld,
  type World,
} from "./digest-fixtures";

// Closing digests (docs/digests.md) on a real database: exact template data, send_after, rule
// disabled/deleted, fresh digests, deliver_at in the person's zone, policy suppression, races, sweep.

let w: World;
const HOUR = 3600_000;
const at = (ms: number) => new Date(NOW.getTime() + ms);

beforeAll(async () => {
  w = await startDigestWorld("digests_close");
  await makeTemplate(w.prisma, "list", {
    title: "{{ data.count }} updates ({{ data.omitted }} not shown)",
    body: "{% for e in data.events %}{{ e.n }};{% endfor %} first={{ data.first.n }} last={{ data.last.n }} key={{ data.key }}",
  });
});
afterAll(() => w.stop());

const payloadOf = (id: string) => w.prisma.message.findUniqueOrThrow({ where: { id } });

it("the window's end sends one message with count, kept events oldest first, first/last, omitted and key", async () => {
  await makeRecipient(w.prisma, "ann");
  await makeDigestRule(w.prisma, {
    key: "window",
    event: "n.window",
    template: "list",
    digest: digestPolicy({ key: "{{ data.thread }}", max_items: 2 }),
  });
  w.clock.set(NOW);
  for (const n of [1, 2, 3, 4]) await w.event("n.window", "ann", { thread: "t1", n });
  const digest = await openDigestOf(w.prisma, "window");
  expect(digest.closes_at.getTime() - digest.created_at.getTime()).toBe(HOUR);

  w.clock.set(digest.closes_at);
  const result = await w.closeDigest(digest.id);
  expect(result).toMatchObject({ status: "sent", messageStatus: "queued" });
  const messageId = (result as { messageId: string }).messageId;

  const message = await payloadOf(messageId);
  expect(message.data).toEqual({
    count: 4,
    events: [
      { thread: "t1", n: 3 },
      { thread: "t1", n: 4 },
    ],
    first: { thread: "t1", n: 3 },
    last: { thread: "t1", n: 4 },
    omitted: 2,
    key: "t1",
  });
  expect(message).toMatchObject({
    digest_id: digest.id,
    dedup_key: `dig:${digest.id}`,
    rule: "window",
    event_id: null,
    sender: "backend",
    status: "queued",
    send_at: digest.closes_at,
  });
  expect(message.content).toMatchObject({
    title: "4 updates (2 not shown)",
    body: "3;4; first=3 last=4 key=t1",
  });
  const closed = await w.prisma.digest.findUniqueOrThrow({ where: { id: digest.id } });
  expect(closed).toMatchObject({
    status: "sent",
    open_key: null,
    message_id: messageId,
    sent_at: digest.closes_at,
    status_reason: null,
  });
  expect(result).toMatchObject({ delivery: { messageId, generation: 0, sendAt: digest.closes_at } });

  // Closing again (a retried job) changes nothing and writes no second message.
  expect(await w.closeDigest(digest.id)).toEqual({
    status: "skipped",
    reason: "not_open",
    delivery: { messageId, generation: 0, sendAt: digest.closes_at },
  });
  expect(await w.prisma.message.count({ where: { rule: "window" } })).toBe(1);
});

it("before closes_at nothing happens; the job reschedules itself at closes_at under its own id", async () => {
  await makeRecipient(w.prisma, "early");
  await makeDigestRule(w.prisma, { key: "early", event: "n.early", template: "list" });
  w.clock.set(NOW);
  await w.event("n.early", "early", { n: 1 });
  const digest = await openDigestOf(w.prisma, "early");

  w.clock.set(at(HOUR - 1000));
  const job = closeDigestJob({ prisma: w.prisma, config: w.config, now: w.clock.now, queues: w.queues });
  expect(
    await job(
      { digestId: digest.id },
      { id: "x", name: "close-digest", queue: "digests", attemptsMade: 0, attempts: 8 },
    ),
  ).toEqual({ status: "not_due", closesAt: digest.closes_at });
  expect((await w.prisma.digest.findUniqueOrThrow({ where: { id: digest.id } })).status).toBe("open");
  const again = await w.queues.queue("digests").getJob(closeDigestJobIds.at(digest.id, digest.closes_at));
  expect(again?.data).toEqual({ digestId: digest.id });
});

it("send_after closes at once: the event that reaches it makes the digest due now", async () => {
  await makeRecipient(w.prisma, "sa");
  await makeDigestRule(w.prisma, {
    key: "after",
    event: "n.after",
    template: "list",
    digest: digestPolicy({ send_after: 3 }),
  });
  w.clock.set(NOW);
  for (const n of [1, 2]) await w.event("n.after", "sa", { n });
  const digest = await openDigestOf(w.prisma, "after");
  expect((await w.closeDigest(digest.id)).status).toBe("not_due");
  await w.event("n.after", "sa", { n: 3 });
  const result = await w.closeDigest(digest.id);
  expect(result).toMatchObject({ status: "sent", messageStatus: "queued" });
  expect((await payloadOf((result as { messageId: string }).messageId)).data).toMatchObject({
    count: 3,
    omitted: 0,
  });
});

it.each([
  [
    "disabled",
    (key: string) => w.prisma.rule.update({ where: { key }, data: { enabled: false } }),
    "rule disabled",
  ],
  ["deleted", (key: string) => w.prisma.rule.delete({ where: { key } }), "rule deleted"],
])("a rule %s before the close cancels the digest and sends nothing", async (name, change, reason) => {
  const key = `gone-${name}`;
  await makeRecipient(w.prisma, key);
  await makeDigestRule(w.prisma, { key, event: `n.${key}`, template: "list" });
  w.clock.set(NOW);
  await w.event(`n.${key}`, key, { n: 1 });
  const digest = await openDigestOf(w.prisma, key);
  await change(key);

  w.clock.set(digest.closes_at);
  expect(await w.closeDigest(digest.id)).toEqual({ status: "cancelled", reason });
  expect(await w.prisma.digest.findUniqueOrThrow({ where: { id: digest.id } })).toMatchObject({
    status: "cancelled",
    status_reason: reason,
    open_key: null,
    message_id: null,
  });
  expect(await w.prisma.message.count({ where: { digest_id: digest.id } })).toBe(0);
});

it("the next event after a send opens a fresh digest", async () => {
  await makeRecipient(w.prisma, "fresh");
  await makeDigestRule(w.prisma, { key: "fresh", event: "n.fresh", template: "list" });
  w.clock.set(NOW);
  await w.event("n.fresh", "fresh", { n: 1 });
  const first = await openDigestOf(w.prisma, "fresh");
  w.clock.set(first.closes_at);
  await w.closeDigest(first.id);
  await w.event("n.fresh", "fresh", { n: 2 });

  const digests = await w.prisma.digest.findMany({
    where: { rule_key: "fresh" },
    orderBy: { created_at: "asc" },
    include: { items: true },
  });
  expect(digests.map((d) => [d.status, d.count, d.items.map((i) => (i.data as { n: number }).n)])).toEqual([
    ["sent", 1, [1]],
    ["open", 1, [2]],
  ]);
  expect(digests[1]!.open_key).toBe("fresh|rcp_fresh|");
});

it("deliver_at is read in the person's zone and quiet hours still apply to the digest message", async () => {
  await w.prisma.category.create({ data: { key: "nightly", respect_quiet_hours: true } });
  await makeRecipient(w.prisma, "ny", { timezone: "America/New_York" });
  await makeDigestRule(w.prisma, {
    key: "nine",
    event: "n.nine",
    template: "list",
    digest: digestPolicy({ window: null, deliver_at: "09:00" }),
  });
  await makeDigestRule(w.prisma, {
    key: "late",
    event: "n.late",
    template: "list",
    category: "nightly",
    digest: digestPolicy({ window: null, deliver_at: "23:00" }),
  });
  w.clock.set(NOW); // 07:00 in New York
  await w.event("n.nine", "ny", { n: 1 });
  await w.event("n.late", "ny", { n: 1 });
  const nine = await openDigestOf(w.prisma, "nine");
  const late = await openDigestOf(w.prisma, "late");
  expect([nine.closes_at.toISOString(), late.closes_at.toISOString()]).toEqual([
    "2024-01-15T14:00:00.000Z",
    "2024-01-16T04:00:00.000Z",
  ]);

  w.clock.set(nine.closes_at);
  const sentNine = await w.closeDigest(nine.id);
  w.clock.set(late.closes_at);
  const sentLate = await w.closeDigest(late.id);
  const sendAt = async (r: typeof sentNine) =>
    (await payloadOf((r as { messageId: string }).messageId)).send_at.toISOString();
  // 23:00 falls in the default 22:00-08:00 quiet hours: the message waits for 08:00 New York time.
  expect([await sendAt(sentNine), await sendAt(sentLate)]).toEqual([
    "2024-01-15T14:00:00.000Z",
    "2024-01-16T13:00:00.000Z",
  ]);
});

it("a digest message stopped by a frequency cap is in the message log as suppressed, with its digest_id", async () => {
  await w.prisma.category.create({ data: { key: "capped", frequency_caps: [{ period: 86400, limit: 1 }] } });
  const person = await makeRecipient(w.prisma, "capped");
  await makeDigestRule(w.prisma, { key: "capped", event: "n.capped", template: "list", category: "capped" });
  w.clock.set(NOW);
  await $transaction(w.prisma, (tx) =>
    composeMessage(
      tx,
      { config: w.config, now: w.clock.now },
      {
        recipientId: person.id,
        template: "list",
        category: "capped",
        channels: ["email"],
        importance: "normal",
        data: {},
        sender: "backend",
        agentKey: null,
        apiKeyId: null,
        rule: null,
        event: null,
        dedupKey: null,
        expiresAt: null,
      },
    ),
  );
  await w.event("n.capped", "capped", { n: 1 });
  const digest = await openDigestOf(w.prisma, "capped");
  w.clock.set(digest.closes_at);
  const result = await w.closeDigest(digest.id);
  expect(result).toMatchObject({ status: "sent", messageStatus: "suppressed", delivery: null });

  const page = await listMessages(
    { prisma: w.prisma },
    { keyId: "k", keyName: "k", scopes: ["admin"], agentKey: null },
    { recipient: "capped", status: "suppressed" },
  );
  expect(page.items.map((m) => [m.status, m.status_reason, m.digest_id])).toEqual([
    ["suppressed", "frequency_cap: 1 per P1D", digest.id],
  ]);
  expect((await w.prisma.digest.findUniqueOrThrow({ where: { id: digest.id } })).status).toBe("sent");
});

it("racing closers write exactly one message", async () => {
  await makeRecipient(w.prisma, "race");
  await makeDigestRule(w.prisma, { key: "race", event: "n.race", template: "list" });
  w.clock.set(NOW);
  for (const n of [1, 2, 3]) await w.event("n.race", "race", { n });
  const digest = await openDigestOf(w.prisma, "race");
  w.clock.set(digest.closes_at);

  const results = await Promise.all(Array.from({ length: 6 }, () => w.closeDigest(digest.id)));
  expect(results.filter((r) => r.status === "sent")).toHaveLength(1);
  expect(results.filter((r) => r.status === "skipped")).toHaveLength(5);
  expect(await w.prisma.message.count({ where: { digest_id: digest.id } })).toBe(1);
});

it("the close job enqueues the delivery of a queued digest message after the commit", async () => {
  await makeRecipient(w.prisma, "deliver");
  await makeDigestRule(w.prisma, { key: "deliver", event: "n.deliver", template: "list" });
  w.clock.set(NOW);
  await w.event("n.deliver", "deliver", { n: 1 });
  const digest = await openDigestOf(w.prisma, "deliver");
  w.clock.set(digest.closes_at);
  const job = closeDigestJob({ prisma: w.prisma, config: w.config, now: w.clock.now, queues: w.queues });
  const out = (await job(
    { digestId: digest.id },
    { id: digest.id, name: "close-digest", queue: "digests", attemptsMade: 0, attempts: 8 },
  )) as { messageId: string };
  const delivery = await w.queues.queue("delivery").getJob(`${out.messageId}-0`);
  expect(delivery?.data).toEqual({ messageId: out.messageId, generation: 0 });
});

it("the sweep re-enqueues open digests due past the grace (a lost job), under a stable id, and nothing else", async () => {
  await makeRecipient(w.prisma, "lost");
  await makeDigestRule(w.prisma, { key: "lost", event: "n.lost", template: "list" });
  await makeDigestRule(w.prisma, {
    key: "young",
    event: "n.young",
    template: "list",
    digest: digestPolicy({ window: 7200 }),
  });
  w.clock.set(NOW);
  await w.event("n.lost", "lost", { n: 1 });
  await w.event("n.young", "lost", { n: 1 });
  const lost = await openDigestOf(w.prisma, "lost");
  const young = await openDigestOf(w.prisma, "young");

  const sweep = closeDueDigestsSweep({ prisma: w.prisma, queues: w.queues });
  expect([sweep.name, sweep.every]).toEqual(["close-due-digests", 15_000]);
  const run = (now: Date) => sweep.run({ sweep: sweep.name, now }) as Promise<{ found: number }>;
  // Within the grace the digest's own delayed job is trusted.
  await run(new Date(lost.closes_at.getTime() + DUE_DIGEST_GRACE_MS));
  expect(await w.queues.queue("digests").getJob(closeDigestJobIds.due(lost.id))).toBeUndefined();
  const later = new Date(lost.closes_at.getTime() + DUE_DIGEST_GRACE_MS + 1);
  await run(later);
  const job = await w.queues.queue("digests").getJob(closeDigestJobIds.due(lost.id));
  expect(job?.data).toEqual({ digestId: lost.id });
  expect(job?.opts.delay ?? 0).toBe(0);
  expect(await w.queues.queue("digests").getJob(closeDigestJobIds.due(young.id))).toBeUndefined();
  // A second run adds nothing new (same id).
  const before = await w.queues.queue("digests").getJobCountByTypes("wait", "delayed", "prioritized");
  await run(later);
  expect(await w.queues.queue("digests").getJobCountByTypes("wait", "delayed", "prioritized")).toBe(before);
});

it("a rule whose category vanished cancels the digest as misconfigured, with no message", async () => {
  await w.prisma.category.create({ data: { key: "doomed" } });
  await makeRecipient(w.prisma, "doomed");
  await makeDigestRule(w.prisma, { key: "doomed", event: "n.doomed", template: "list", category: "doomed" });
  w.clock.set(NOW);
  await w.event("n.doomed", "doomed", { n: 1 });
  const digest = await openDigestOf(w.prisma, "doomed");
  await w.prisma.category.delete({ where: { key: "doomed" } });

  w.clock.set(digest.closes_at);
  const reason = "misconfigured: category 'doomed' does not exist";
  expect(await w.closeDigest(digest.id)).toEqual({ status: "cancelled", reason });
  expect(await w.prisma.digest.findUniqueOrThrow({ where: { id: digest.id } })).toMatchObject({
    status: "cancelled",
    status_reason: reason,
    sent_at: null,
    message_id: null,
  });
  expect(await w.prisma.message.count({ where: { digest_id: digest.id } })).toBe(0);
});
