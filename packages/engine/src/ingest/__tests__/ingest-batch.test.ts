import { type Queues } from "@svc/queue";
import { Prisma, advisoryLockKey, advisoryLockKeySql, LockNamespace, lockRecipient } from "@svc/store";
import type { TestDatabase } from "@svc/testkit";
import type { AcceptEventDeps } from "../../events/accept-event";
import { createIngestBatcher } from "../ingest-batcher";
import { ingestEvents } from "../ingest-batch";
import { ingestEvent } from "../ingest-event";
import type { IngestDeps } from "../ingest-types";
import {
  makeRecipient,
  makeRule,
  makeTemplate,
  outcomesOf,
  postEvent,
  startIngestEnv,
  type IngestTestEnv,
} from "./ingest-fixtures";

// Group commit: several events of different people in one transaction, a person's second event
// after the first, a failing event isolated from its batch, and the configuration copy that
// follows every edit of rules, templates and categories.

let db: TestDatabase;
let queues: Queues;
let deps: IngestDeps & { queues: Queues };
let accept: AcceptEventDeps;
let env: IngestTestEnv;

beforeAll(async () => {
  env = await startIngestEnv("ingest_batch");
  ({ db, queues, deps, accept } = env);
  await makeTemplate(db.prisma, "tpl");
  for (const person of ["ann", "bob", "cem", "dia"]) await makeRecipient(db.prisma, person);
  await makeRule(db.prisma, { key: "ship", event: "order.shipped" });
});

afterAll(() => env.close());

const messagesOf = (eventId: string) =>
  db.prisma.message.findMany({
    where: { event_id: eventId },
    select: { rule: true, status: true, template: true, category: true },
  });

it("ingests events of several people in one call, each with its outcome, message and processed status", async () => {
  const ids = [
    await postEvent(accept, { name: "order.shipped", recipient: "ann" }),
    await postEvent(accept, { name: "order.shipped", recipient: "bob" }),
    await postEvent(accept, { name: "order.other", recipient: "cem" }),
  ];
  const results = await ingestEvents(deps, ids);
  expect(ids.map((id) => results.get(id)?.status)).toEqual(["processed", "processed", "processed"]);
  expect(await outcomesOf(db.prisma, ids[0]!)).toEqual([
    { rule: "ship", matched: true, reason: null, status: "queued", message: true, digest: false },
  ]);
  expect(await outcomesOf(db.prisma, ids[2]!)).toEqual([]);
  expect(await messagesOf(ids[1]!)).toEqual([
    { rule: "ship", status: "queued", template: "tpl", category: "transactional" },
  ]);
  const events = await db.prisma.event.findMany({
    where: { id: { in: ids } },
    select: { status: true, attempts: true, recipient_id: true },
  });
  expect(events.map((e) => [e.status, e.attempts, e.recipient_id !== null])).toEqual(
    Array(3).fill(["processed", 1, true]),
  );
});

it("a person's second event in the same call runs after the first; unknown and processed events are skipped", async () => {
  const first = await postEvent(accept, { name: "order.shipped", recipient: "dia" });
  const second = await postEvent(accept, { name: "order.shipped", recipient: "dia" });
  const results = await ingestEvents(deps, [first, second, "evt_missing", first]);
  expect(results.get(first)?.status).toBe("processed");
  expect(results.get(second)?.status).toBe("processed");
  expect(results.get("evt_missing")).toEqual({ status: "skipped", reason: "not_found" });
  expect((await ingestEvents(deps, [first])).get(first)).toEqual({ status: "skipped", reason: "processed" });
  expect(await db.prisma.message.count({ where: { event_id: { in: [first, second] } } })).toBe(2);
});

it("the SQL lock key equals advisoryLockKey, so a batch and a single ingest lock the same key", async () => {
  const values = ["ann", "rcp_01HZX", "ünïcode", "x".repeat(300)];
  const rows = await db.prisma.$queryRawUnsafe<{ k: bigint }[]>(
    `SELECT ${advisoryLockKeySql(LockNamespace.recipient, "v")} AS k FROM unnest($1::text[]) WITH ORDINALITY AS t(v, o) ORDER BY o`,
    values,
  );
  expect(rows.map((r) => BigInt(r.k))).toEqual(
    values.map((v) => advisoryLockKey(LockNamespace.recipient, v)),
  );
});

it("a batch waits for a person's lock held elsewhere (here: a direct send's internal-id lock)", async () => {
  const id = await postEvent(accept, { name: "order.shipped", recipient: "cem" });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = db.prisma.$transaction(async (tx) => {
    await lockRecipient(tx, "rcp_cem");
    locked();
    await held;
  });
  await isLocked;
  let finished = false;
  const ingesting = ingestEvents(deps, [id]).then((r) => ((finished = true), r));
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(finished).toBe(false);
  release();
  await holder;
  expect((await ingesting).get(id)?.status).toBe("processed");
});

it("concurrent batches of the same people, in opposite orders, all commit", async () => {
  const people = ["p0", "p1", "p2", "p3", "p4", "p5"];
  for (const person of people) await makeRecipient(db.prisma, person);
  const post = (person: string) => postEvent(accept, { name: "order.shipped", recipient: person });
  const forward: string[] = [];
  const backward: string[] = [];
  for (const person of people) forward.push(await post(person));
  for (const person of [...people].reverse()) backward.push(await post(person));
  const [a, b] = await Promise.all([ingestEvents(deps, forward), ingestEvents(deps, backward)]);
  expect([...a.values(), ...b.values()].map((r) => r.status)).toEqual(Array(12).fill("processed"));
  const perPerson = await db.prisma.message.groupBy({
    by: ["recipient_external_id"],
    where: { event_id: { in: [...forward, ...backward] } },
    _count: true,
  });
  expect(perPerson.map((g) => [g.recipient_external_id, g._count]).sort()).toEqual(people.map((p) => [p, 2]));
});

it("the batcher isolates a failing event: the others of its batch still commit and announce", async () => {
  const good = await postEvent(accept, { name: "order.shipped", recipient: "ann" });
  const broken = await postEvent(accept, { name: "order.shipped", recipient: "broken" });
  // Two identical addresses break the unique (recipient, channel, value): this event throws.
  const twice = [
    { channel: "email", value: "x@example.com" },
    { channel: "email", value: "x@example.com" },
  ];
  await db.prisma.event.update({
    where: { id: broken },
    data: { recipient_profile: { addresses: twice } as Prisma.InputJsonValue },
  });
  const batcher = createIngestBatcher(deps, { lingerMs: 20 });
  const [goodResult, brokenResult] = await Promise.allSettled([batcher.ingest(good), batcher.ingest(broken)]);
  expect(goodResult.status).toBe("fulfilled");
  expect(brokenResult.status).toBe("rejected");
  const message = await db.prisma.message.findFirstOrThrow({ where: { event_id: good } });
  expect((await queues.queue("delivery").getJob(`${message.id}-0`))?.data).toEqual({
    messageId: message.id,
    generation: 0,
  });
  expect((await db.prisma.event.findUniqueOrThrow({ where: { id: broken } })).status).toBe("pending");
});

describe("configuration copy", () => {
  // Each case edits between two events of one process; the second event must see the edit.
  const cases: [string, () => Promise<unknown>, unknown][] = [
    [
      "a rule's template changed",
      async () => {
        if (!(await db.prisma.template.findUnique({ where: { key: "tpl2" } })))
          await makeTemplate(db.prisma, "tpl2");
        await db.prisma.rule.update({ where: { key: "edit" }, data: { template: "tpl2" } });
      },
      [{ rule: "edit", status: "queued", template: "tpl2", category: "transactional" }],
    ],
    [
      "the rule disabled",
      () => db.prisma.rule.update({ where: { key: "edit" }, data: { enabled: false } }),
      [],
    ],
    ["the rule deleted", () => db.prisma.rule.delete({ where: { key: "edit" } }), []],
    [
      "a new rule created",
      () => makeRule(db.prisma, { key: "edit-new", event: "thing.edited", category: "marketing" }),
      [
        { rule: "edit", status: "queued", template: "tpl", category: "transactional" },
        { rule: "edit-new", status: "queued", template: "tpl", category: "marketing" },
      ],
    ],
  ];

  beforeEach(async () => {
    await db.prisma.rule.deleteMany({ where: { key: { startsWith: "edit" } } });
    await makeRule(db.prisma, { key: "edit", event: "thing.edited" });
  });

  it.each(cases)("%s is honoured by the next event", async (_name, edit, expected) => {
    for (const ingest of [(id: string) => ingestEvent(deps, id), (id: string) => ingestEvents(deps, [id])]) {
      const before = await postEvent(accept, { name: "thing.edited", recipient: "bob" });
      await ingest(before);
      expect(await messagesOf(before)).toEqual([
        { rule: "edit", status: "queued", template: "tpl", category: "transactional" },
      ]);
      await edit();
      const after = await postEvent(accept, { name: "thing.edited", recipient: "bob" });
      await ingest(after);
      const messages = await messagesOf(after);
      expect(messages.sort((a, b) => a.rule!.localeCompare(b.rule!))).toEqual(expected);
      // Back to the starting rule for the second way of ingesting.
      await db.prisma.rule.deleteMany({ where: { key: { startsWith: "edit" } } });
      await makeRule(db.prisma, { key: "edit", event: "thing.edited" });
    }
  });

  it("a template's text edited is rendered by the next event", async () => {
    const render = async () => {
      const id = await postEvent(accept, { name: "thing.edited", recipient: "bob", data: { msg: "x" } });
      await ingestEvent(deps, id);
      return (await db.prisma.message.findFirstOrThrow({ where: { event_id: id } })).content as {
        body: string;
      };
    };
    expect((await render()).body).toBe("Hello x");
    await db.prisma.template.update({
      where: { key: "tpl" },
      data: { locales: { en: { title: "t", body: "Bye {{ data.msg }}" } } },
    });
    expect((await render()).body).toBe("Bye x");
    await db.prisma.template.update({
      where: { key: "tpl" },
      data: { locales: { en: { title: "{{ event.name }}", body: "Hello {{ data.msg }}" } } },
    });
  });

  it("a category's settings edited apply to the next event", async () => {
    const statusOf = async () => {
      const id = await postEvent(accept, { name: "thing.edited", recipient: "bob" });
      await ingestEvent(deps, id);
      return (await messagesOf(id))[0]?.status;
    };
    await db.prisma.category.create({ data: { key: "capped", frequency_caps: [] } });
    await db.prisma.rule.update({ where: { key: "edit" }, data: { category: "capped" } });
    expect(await statusOf()).toBe("queued");
    await db.prisma.category.update({
      where: { key: "capped" },
      data: { frequency_caps: [{ period: 3600, limit: 1 }] },
    });
    expect(await statusOf()).toBe("suppressed");
  });
});

describe("inline profiles in a batch", () => {
  const profileOf = (externalId: string) =>
    db.prisma.recipient.findUniqueOrThrow({
      where: { external_id: externalId },
      select: {
        id: true,
        locale: true,
        timezone: true,
        region: true,
        attributes: true,
        addresses: { select: { channel: true, value: true, enabled: true }, orderBy: { created_at: "asc" } },
      },
    });

  it("writes new and known people's profiles together, as one at a time would", async () => {
    await makeRecipient(db.prisma, "eve");
    await db.prisma.recipient.update({ where: { external_id: "eve" }, data: { region: "EU", locale: "en" } });
    const ids = [
      await postEvent(accept, {
        name: "order.shipped",
        recipient: {
          external_id: "eve",
          locale: "de",
          attributes: { plan: "pro" },
          addresses: [
            { channel: "push", value: "dev-eve" },
            { channel: "email", value: "eve2@example.com", enabled: false },
          ],
        },
      }),
      await postEvent(accept, {
        name: "order.shipped",
        recipient: {
          external_id: "fay-new",
          timezone: "Europe/Berlin",
          addresses: [{ channel: "email", value: "fay@example.com" }],
        },
      }),
      await postEvent(accept, { name: "order.shipped", recipient: { external_id: "gus-new" } }),
      await postEvent(accept, { name: "order.shipped", recipient: "ann" }),
    ];
    const results = await ingestEvents(deps, ids);
    expect(ids.map((id) => results.get(id)?.status)).toEqual([
      "processed",
      "processed",
      "processed",
      "processed",
    ]);
    const eve = await profileOf("eve");
    expect(eve).toMatchObject({
      id: "rcp_eve",
      locale: "de",
      region: "EU",
      timezone: null,
      attributes: { plan: "pro" },
      addresses: [
        { channel: "push", value: "dev-eve", enabled: true },
        { channel: "email", value: "eve2@example.com", enabled: false },
      ],
    });
    const fay = await profileOf("fay-new");
    expect(fay).toMatchObject({
      locale: null,
      timezone: "Europe/Berlin",
      attributes: {},
      addresses: [{ channel: "email", value: "fay@example.com", enabled: true }],
    });
    expect(await profileOf("gus-new")).toMatchObject({ addresses: [], attributes: {} });
    // Each message belongs to its person, under the id written in the batch.
    const owners = await db.prisma.message.findMany({
      where: { event_id: { in: ids } },
      select: { event_id: true, recipient_id: true },
    });
    expect(owners.find((m) => m.event_id === ids[1])?.recipient_id).toBe(fay.id);
    expect(owners.find((m) => m.event_id === ids[0])?.recipient_id).toBe("rcp_eve");
    expect(await messagesOf(ids[1]!)).toEqual([
      { rule: "ship", status: "queued", template: "tpl", category: "transactional" },
    ]);
  });
});
