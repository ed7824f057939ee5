import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { baseRequest, compose, makeRecipient, makeTemplate, NOW } from "./compose-fixtures";

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
  expect(second).toEqual({ message: first.message, duplicate: true });
  expect(await db.prisma.message.count({ where: { recipient_id: recipient.id } })).toBe(1);
});
