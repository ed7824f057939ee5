import { $transaction, findMessage, lockRecipient, lockRecipients } from "@svc/store";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { composeMessagesOfPeople } from "../compose-batch";
import { ComposeReferenceError } from "../compose-errors";
import { composeMessage } from "../compose-message";
import { contentForChannel, type MessageContent } from "../message-content";
import {
  baseRequest,
  compose,
  makeAgent,
  makeCategory,
  makeRecipient,
  makeTemplate,
  NOW,
  testConfig,
} from "./compose-fixtures";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("compose_basics");
});
afterAll(() => db.drop());

test("a plain transactional message is queued now, rendered, with every field written", async () => {
  const recipient = await makeRecipient(db.prisma, { external_id: "ada", locale: "en-GB" });
  const template = await makeTemplate(db.prisma);
  const { message, duplicate } = await compose(
    db.prisma,
    baseRequest(recipient.id, template.key, { idempotencyKey: "k1", requestHash: "h1", apiKeyId: "key_1" }),
  );
  expect(duplicate).toBe(false);
  expect(message).toMatchObject({
    status: "queued",
    status_reason: null,
    recipient_id: recipient.id,
    recipient_external_id: "ada",
    sender: "backend",
    agent_key: null,
    api_key_id: "key_1",
    category: "transactional",
    template: template.key,
    importance: "normal",
    claimed_importance: "normal",
    channels: ["email"],
    content: { title: "Hi ada", body: "hello", url: null, thread: null, locale: "en", channel: "email" },
    data: { msg: "hello" },
    idempotency_key: "k1",
    request_hash: "h1",
    idempotency_expires_at: new Date("2024-01-22T12:00:00Z"),
    send_at: NOW,
    created_at: NOW,
    generation: 0,
  });
  expect(message.id).toMatch(/^msg_[0-9A-Z]{26}$/);
  expect(message.link_nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const stored = await db.prisma.message.findUniqueOrThrow({ where: { id: message.id } });
  expect(stored).toEqual(message);
});

test("the same dedup key returns the original with duplicate: true and writes nothing new", async () => {
  const recipient = await makeRecipient(db.prisma);
  const template = await makeTemplate(db.prisma);
  const request = baseRequest(recipient.id, template.key, { dedupKey: `evt:evt_1:${recipient.id}` });
  const first = await compose(db.prisma, request);
  const second = await compose(db.prisma, { ...request, data: { msg: "other" } });
  expect(second).toEqual({ message: first.message, duplicate: true, notices: [] });
  expect(await db.prisma.message.count({ where: { recipient_id: recipient.id } })).toBe(1);
});

test("a group composed twice with dedup keys (a retried broadcast batch) finds every message it wrote", async () => {
  const template = await makeTemplate(db.prisma);
  const people = [
    await makeRecipient(db.prisma),
    await makeRecipient(db.prisma),
    await makeRecipient(db.prisma),
  ];
  const deps = { config: testConfig(), now: () => NOW };
  const requests = people.map((p) => baseRequest(p.id, template.key, { dedupKey: `brd:brd_1:${p.id}` }));
  const composeGroup = (group: typeof requests) =>
    $transaction(db.prisma, async (tx) => {
      await lockRecipients(
        tx,
        group.map((r) => r.recipientId),
      );
      return composeMessagesOfPeople(tx, deps, group);
    });

  // The first try wrote two of the three; the retry gets those two back and composes the third.
  const first = await composeGroup(requests.slice(0, 2));
  const again = await composeGroup(requests);
  const results = again.map((o) => (o.ok ? o.result : null));
  expect(results.map((r) => r?.duplicate)).toEqual([true, true, false]);
  expect(results.slice(0, 2).map((r) => r?.message)).toEqual(
    first.map((o) => (o.ok ? o.result.message : null)),
  );
  expect(results[2]?.message).toMatchObject({ status: "queued", dedup_key: `brd:brd_1:${people[2]!.id}` });
  // The rows returned are the rows stored, column for column.
  for (const r of results)
    expect(await db.prisma.message.findUniqueOrThrow({ where: { id: r!.message.id } })).toEqual(r!.message);
  const stored = await db.prisma.message.groupBy({
    by: ["recipient_id"],
    where: { dedup_key: { startsWith: "brd:brd_1:" } },
    _count: { _all: true },
  });
  expect(stored.map((row) => row._count._all)).toEqual([1, 1, 1]);
  // One request per person, and no idempotency keys: those compose alone.
  await expect(composeGroup([requests[0]!, requests[0]!])).rejects.toThrow("one request per person");
  await expect(
    composeGroup([baseRequest(people[0]!.id, template.key, { idempotencyKey: "k", requestHash: "h" })]),
  ).rejects.toThrow("compose alone");
});

describe("content", () => {
  test("rendered in the person's locale for the first reachable channel, with variants for overridden channels", async () => {
    const recipient = await makeRecipient(db.prisma, {
      locale: "de-AT",
      addresses: [
        { channel: "sms", value: "+43660000" },
        { channel: "email", value: "a@b.c" },
        { channel: "push", value: "device-1" },
      ],
    });
    const template = await makeTemplate(db.prisma, {
      en: { title: "Hello", body: "x" },
      de: {
        title: "Hallo {{ recipient.external_id }}",
        body: "Code {{ data.code }}",
        url: "https://x.test/{{ data.code }}",
        thread: "codes",
        channels: { sms: { body: "SMS {{ data.code }}" } },
      },
    });
    const { message } = await compose(
      db.prisma,
      baseRequest(recipient.id, template.key, { channels: ["email", "sms", "push"], data: { code: 42 } }),
    );
    const name = recipient.external_id;
    expect(message.content).toEqual({
      locale: "de",
      channel: "email",
      title: `Hallo ${name}`,
      body: "Code 42",
      url: "https://x.test/42",
      thread: "codes",
      variants: {
        sms: { title: `Hallo ${name}`, body: "SMS 42", url: "https://x.test/42", thread: "codes" },
      },
    });
    expect(contentForChannel(message.content as unknown as MessageContent, "sms").body).toBe("SMS 42");
    expect(contentForChannel(message.content as unknown as MessageContent, "push").body).toBe("Code 42");
  });

  test("the event is visible to templates", async () => {
    const recipient = await makeRecipient(db.prisma);
    const template = await makeTemplate(db.prisma, {
      en: { title: "{{ event.name }} {{ event.id }}", body: "" },
    });
    const { message } = await compose(
      db.prisma,
      baseRequest(recipient.id, template.key, {
        event: { id: "evt_9", name: "order.paid", created_at: NOW },
      }),
    );
    expect(message.content).toMatchObject({ title: "order.paid evt_9", body: "" });
  });
});

describe("fatigue state", () => {
  test("a queued message counts; the next one starts the pause, which is stored though suppressed", async () => {
    const recipient = await makeRecipient(db.prisma);
    const template = await makeTemplate(db.prisma);
    const category = await makeCategory(db.prisma, { fatigue: { after: 1, pause: 3600 } });
    const request = baseRequest(recipient.id, template.key, { category: category.key });
    const key = { recipient_id_category: { recipient_id: recipient.id, category: category.key } };

    expect((await compose(db.prisma, request)).message.status).toBe("queued");
    expect(await db.prisma.fatigueState.findUnique({ where: key })).toMatchObject({
      sent_since_engagement: 1,
      paused_until: null,
    });
    const second = await compose(db.prisma, request);
    expect(second.message).toMatchObject({ status: "suppressed", status_reason: "fatigue" });
    expect(await db.prisma.fatigueState.findUnique({ where: key })).toMatchObject({
      sent_since_engagement: 1,
      paused_until: new Date(NOW.getTime() + 3_600_000),
    });
  });
});

describe("dry run", () => {
  test("decides without writing a message or fatigue state", async () => {
    const recipient = await makeRecipient(db.prisma);
    const template = await makeTemplate(db.prisma);
    const category = await makeCategory(db.prisma, { fatigue: { after: 5, pause: 3600 } });
    const { message, duplicate } = await compose(
      db.prisma,
      baseRequest(recipient.id, template.key, { category: category.key, dryRun: true }),
    );
    expect(duplicate).toBe(false);
    expect(message).toMatchObject({ status: "queued", content: { title: `Hi ${recipient.external_id}` } });
    expect(await db.prisma.message.count({ where: { recipient_id: recipient.id } })).toBe(0);
    expect(await db.prisma.fatigueState.count({ where: { recipient_id: recipient.id } })).toBe(0);
  });

  test("a duplicate shows as suppressed / duplicate", async () => {
    const recipient = await makeRecipient(db.prisma);
    const template = await makeTemplate(db.prisma);
    const request = baseRequest(recipient.id, template.key, { dedupKey: `dig:${recipient.id}` });
    const original = await compose(db.prisma, request);
    const dry = await compose(db.prisma, { ...request, dryRun: true });
    expect(dry.duplicate).toBe(true);
    expect(dry.message).toMatchObject({ status: "suppressed", status_reason: "duplicate" });
    expect(dry.message.id).not.toBe(original.message.id);
  });
});

describe("idempotency", () => {
  test("same key and body returns the original; another body is 409", async () => {
    const recipient = await makeRecipient(db.prisma);
    const template = await makeTemplate(db.prisma);
    const request = baseRequest(recipient.id, template.key, { idempotencyKey: "same", requestHash: "h1" });
    const first = await compose(db.prisma, request);
    expect(await compose(db.prisma, request)).toEqual({
      message: first.message,
      duplicate: true,
      notices: [],
    });
    await expect(compose(db.prisma, { ...request, requestHash: "h2" })).rejects.toMatchObject({
      code: "conflict",
      status: 409,
    });
  });

  test("keys are per sender", async () => {
    const recipient = await makeRecipient(db.prisma);
    const template = await makeTemplate(db.prisma);
    const agent = await makeAgent(db.prisma);
    const request = baseRequest(recipient.id, template.key, {
      idempotencyKey: "per-sender",
      requestHash: "h",
    });
    const backend = await compose(db.prisma, request);
    const fromAgent = await compose(db.prisma, { ...request, sender: agent.key, agentKey: agent.key });
    expect(fromAgent.duplicate).toBe(false);
    expect(fromAgent.message.id).not.toBe(backend.message.id);
  });

  test("after 7 days the key is released and a new message takes it", async () => {
    const recipient = await makeRecipient(db.prisma);
    const template = await makeTemplate(db.prisma);
    const request = baseRequest(recipient.id, template.key, { idempotencyKey: "week", requestHash: "h1" });
    const first = await compose(db.prisma, request);
    const later = new Date(NOW.getTime() + 7 * 86_400_000);
    const second = await compose(db.prisma, { ...request, requestHash: "h2" }, { now: later });
    expect(second.duplicate).toBe(false);
    expect(second.message.idempotency_key).toBe("week");
    expect(await db.prisma.message.findUniqueOrThrow({ where: { id: first.message.id } })).toMatchObject({
      idempotency_key: null,
      idempotency_expires_at: null,
    });
  });
});

describe("references the caller must check", () => {
  test.each([
    ["recipient", { recipientId: "rcp_missing" }],
    ["category", { category: "missing-category" }],
    ["agent", { agentKey: "missing-agent", sender: "missing-agent" }],
  ] as const)("missing %s throws ComposeReferenceError", async (reference, overrides) => {
    const recipient = await makeRecipient(db.prisma);
    const template = await makeTemplate(db.prisma);
    const error = await compose(db.prisma, baseRequest(recipient.id, template.key, overrides)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ComposeReferenceError);
    expect(error).toMatchObject({ reference });
  });
});

describe("races", () => {
  test("10 parallel composes with one dedup key under the recipient lock: one message", async () => {
    const recipient = await makeRecipient(db.prisma);
    const template = await makeTemplate(db.prisma);
    const request = baseRequest(recipient.id, template.key, { dedupKey: `brd:brd_1:${recipient.id}` });
    const results = await Promise.all(Array.from({ length: 10 }, () => compose(db.prisma, request)));
    const ids = new Set(results.map((r) => r.message.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(await db.prisma.message.count({ where: { recipient_id: recipient.id } })).toBe(1);
  });

  // One idempotency key, two people (so two different locks): the second insert waits on the
  // first's uncommitted row, then hits the unique index; the savepoint keeps its transaction alive.
  test.each([
    ["same body hash: the original comes back", "h1", { duplicate: true }],
    ["another body hash: 409", "h2", "conflict"],
  ] as const)("racing insert across recipients, %s", async (_name, secondHash, expected) => {
    const [ann, bob] = [await makeRecipient(db.prisma), await makeRecipient(db.prisma)];
    const template = await makeTemplate(db.prisma);
    const key = `race-${secondHash}-${ann.id}`;
    const deps = { config: testConfig(), now: () => NOW };
    let firstInserted!: () => void;
    const inserted = new Promise<void>((resolve) => (firstInserted = resolve));
    const first = $transaction(db.prisma, async (tx) => {
      await lockRecipient(tx, ann.id);
      const result = await composeMessage(
        tx,
        deps,
        baseRequest(ann.id, template.key, { idempotencyKey: key, requestHash: "h1" }),
      );
      firstInserted();
      await new Promise((resolve) => setTimeout(resolve, 300)); // hold the row uncommitted
      return result;
    });
    await inserted;
    const second = $transaction(db.prisma, async (tx) => {
      await lockRecipient(tx, bob.id);
      const result = await composeMessage(
        tx,
        deps,
        baseRequest(bob.id, template.key, { idempotencyKey: key, requestHash: secondHash }),
      );
      // The transaction is still usable after the savepoint rollback.
      await findMessage(tx, "msg_none");
      return result;
    });
    const original = await first;
    if (expected === "conflict") {
      await expect(second).rejects.toMatchObject({ code: "conflict" });
    } else {
      expect(await second).toEqual({ message: original.message, duplicate: true, notices: [] });
    }
    expect(await db.prisma.message.count({ where: { idempotency_key: key } })).toBe(1);
  });
});
