import { newId } from "@svc/core";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { makePerson, queuedMessage } from "../../delivery/__tests__/delivery-fixtures";
import { buildWebhookData, type WebhookEventPayload } from "../webhook-data";

// docs/webhooks.md "Personal data": the person each delivery is about, as the fan-out names it.

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("webhook_data_recipient");
});
afterAll(() => db.drop());

const at = new Date().toISOString();
const payload = (
  type: string,
  kind: WebhookEventPayload["subject"]["kind"],
  id: string,
): WebhookEventPayload => ({
  type,
  occurred_at: at,
  subject: { kind, id },
  snapshot: kind === "recipient" ? { external_id: "x", source: "api", changes: {}, created_at: at } : {},
});

test("a message's, an event's and a digest's recipient, a recipient.* subject; none for a broadcast", async () => {
  const person = await makePerson(db.prisma, [{ channel: "sms", value: "+15550008001" }]);
  const message = await queuedMessage(db.prisma, person, { channels: ["sms"] });
  const event = await db.prisma.event.create({
    data: {
      id: newId("event"),
      name: "order.created",
      sender: "backend",
      recipient_id: person.id,
      recipient_external_id: person.external_id,
      status: "processed",
    },
  });
  const digest = await db.prisma.digest.create({
    data: {
      id: newId("digest"),
      rule_key: "r",
      recipient_id: person.id,
      recipient_external_id: person.external_id,
      key: "k",
      status: "sent",
      closes_at: new Date(),
    },
  });
  const built = await buildWebhookData({ prisma: db.prisma, now: () => new Date() }, [
    payload("message.sent", "message", message.id),
    payload("approval.decided", "approval", message.id),
    payload("event.processed", "event", event.id),
    payload("digest.sent", "digest", digest.id),
    payload("recipient.preferences_changed", "recipient", person.id),
    payload("broadcast.completed", "broadcast", "brd_missing"),
    payload("message.sent", "message", "msg_gone"),
  ]);
  expect(built.map((b) => b?.recipientId)).toEqual([
    person.id,
    person.id,
    person.id,
    person.id,
    person.id,
    null,
    null,
  ]);
});

test("a recipient.* event about an erased person is dropped, recipient.erased is not", async () => {
  const built = await buildWebhookData({ prisma: db.prisma, now: () => new Date() }, [
    payload("recipient.preferences_changed", "recipient", "rcp_erased"),
    payload("recipient.erased", "recipient", "rcp_erased"),
  ]);
  expect(built[0]).toBeNull();
  expect(built[1]).toEqual({
    data: { external_id: "x", source: "api", changes: {}, created_at: at },
    recipientId: "rcp_erased",
  });
});
