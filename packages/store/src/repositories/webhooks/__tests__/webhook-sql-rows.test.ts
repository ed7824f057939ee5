import { createPrisma } from "../../../client";
import type { PrismaClient } from "../../../generated/prisma/client";
import { migrate } from "../../../migrations";
import { dropDatabase, REAL_MIGRATIONS_DIR, scratchDatabaseUrl } from "../../../__tests__/scratch";
import {
  claimWebhookDeliveries,
  findClaimedWebhookDeliveries,
  insertWebhookDeliveries,
  markWebhookDeliveriesSucceeded,
} from "../webhook-deliveries";
import { findEnabledWebhookEndpoints, findWebhookEndpointsByIds } from "../webhook-endpoints";
import { findMessagesWithAttempts } from "../webhook-subjects";

// The webhook path's statements are SQL over arrays (docs/webhooks.md "What a webhook costs"):
// their rows must be exactly the generated model's, as `findMany` returns them, or the code that
// reads them (serializeMessage, the senders) would see other types than it was written for.

const databaseUrl = scratchDatabaseUrl("webhook_sql");
let prisma: PrismaClient;
const at = new Date("2026-11-28T10:00:00.123Z");
/** Rows in id order (the statements return them in no particular order). */
const byId = <T extends { id: string }>(list: T[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));

beforeAll(async () => {
  await migrate({ databaseUrl, migrationsDir: REAL_MIGRATIONS_DIR, createDatabase: true });
  prisma = createPrisma({ databaseUrl, poolMax: 2 });
  await prisma.recipient.create({ data: { id: "rcp_1", external_id: "ada" } });
  await prisma.message.create({
    data: {
      id: "msg_full",
      recipient_id: "rcp_1",
      recipient_external_id: "ada",
      sender: "agent:a",
      agent_key: "a",
      category: "news",
      template: "tpl",
      rule: "r",
      importance: "high",
      claimed_importance: "critical",
      channels: ["email", "sms"],
      channel: "email",
      content: { title: "Hi ☃", body: "x", nested: { n: 1.5, list: [1, "2", null] } },
      data: { order: 7 },
      screening: { verdict: "pass" },
      send_at: at,
      expires_at: at,
      sent_at: at,
      link_nonce: "n",
      status: "sent",
      status_reason: "because",
      generation: 3,
      delivery_attempts: 2,
    },
  });
  await prisma.message.create({
    data: {
      id: "msg_bare",
      recipient_id: "rcp_1",
      recipient_external_id: "ada",
      sender: "backend",
      category: "news",
      importance: "normal",
      claimed_importance: "normal",
      channels: [],
      data: {},
      send_at: at,
      link_nonce: "m",
      status: "queued",
    },
  });
  for (const [id, seconds] of [
    ["att_2", 2],
    ["att_1", 1],
  ] as const)
    await prisma.deliveryAttempt.create({
      data: {
        id,
        message_id: "msg_full",
        channel: "email",
        provider: "smtp",
        address: null,
        ok: seconds === 2,
        retryable: true,
        error: seconds === 1 ? "timeout" : null,
        at: new Date(at.getTime() + seconds * 1000),
      },
    });
  await prisma.webhookEndpoint.create({
    data: { id: "whk_1", url: "https://hooks.example.com", events: ["*"], secret_salt: "s" },
  });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await dropDatabase(databaseUrl);
});

it("findMessagesWithAttempts returns the rows findMany with its attempts returns", async () => {
  const expected = await prisma.message.findMany({
    where: { id: { in: ["msg_full", "msg_bare"] } },
    include: { attempts: { orderBy: { at: "asc" } } },
  });
  const rows = await findMessagesWithAttempts(prisma, ["msg_full", "msg_bare", "msg_missing"]);
  expect(byId(rows)).toEqual(byId(expected));
  expect(rows.find((row) => row.id === "msg_full")!.attempts.map((a) => a.id)).toEqual(["att_1", "att_2"]);
  expect(await findMessagesWithAttempts(prisma, [])).toEqual([]);
});

it("the deliveries' statements return the model's rows and keep the body's bytes", async () => {
  const body = '{"id":"whe_1","type":"message.sent","created_at":"x","data":{"z":1,"a":"☃"}}';
  const written = await insertWebhookDeliveries(prisma, [
    { id: "whd_1", endpointId: "whk_1", eventId: "whe_1", type: "message.sent", body, now: at },
    {
      id: "whd_2",
      endpointId: "whk_1",
      eventId: "whe_2",
      type: "message.sent",
      body: "{}",
      recipientId: "rcp_1",
      now: at,
      claimedUntil: new Date(at.getTime() + 60_000),
    },
  ]);
  expect(written).toBe(2);
  // A repeated fan-out (same event id) writes nothing.
  expect(
    await insertWebhookDeliveries(prisma, [
      { id: "whd_3", endpointId: "whk_1", eventId: "whe_1", type: "message.sent", body, now: at },
    ]),
  ).toBe(0);

  const model = await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: "whd_1" } });
  expect(model.body).toBe(body);
  expect(model).toMatchObject({ status: "pending", attempts: 0, next_attempt_at: at, recipient_id: null });

  const lease = new Date(at.getTime() + 30_000);
  const claimed = await claimWebhookDeliveries(prisma, ["whd_1", "whd_2"], at, lease);
  // whd_2 is claimed until later (by its fan-out), so not due.
  expect(claimed).toEqual([{ ...model, next_attempt_at: lease }]);
  expect(await findClaimedWebhookDeliveries(prisma, ["whd_1", "whd_2"], lease)).toEqual(claimed);
  expect(await findClaimedWebhookDeliveries(prisma, ["whd_2"], lease)).toEqual([]);

  const later = new Date(at.getTime() + 1_000);
  expect(await markWebhookDeliveriesSucceeded(prisma, ["whd_1", "whd_2"], lease, 204, later)).toBe(1);
  expect(await prisma.webhookDelivery.findUniqueOrThrow({ where: { id: "whd_1" } })).toEqual({
    ...model,
    status: "succeeded",
    attempts: 1,
    last_status_code: 204,
    delivered_at: later,
    next_attempt_at: null,
  });
  // Only under its claim: a second write finds nothing held.
  expect(await markWebhookDeliveriesSucceeded(prisma, ["whd_1"], lease, 200, later)).toBe(0);
  expect(await markWebhookDeliveriesSucceeded(prisma, ["whd_1"], lease, null, later)).toBe(0);
});

it("the endpoints' reads of the send path return the model's rows", async () => {
  await prisma.webhookEndpoint.create({
    data: {
      id: "whk_2",
      url: "https://b.example.com",
      events: ["message.*", "recipient.erased"],
      description: "two",
      enabled: false,
      secret_salt: "t",
      previous_secret_salt: "u",
      previous_secret_until: at,
      disabled_reason: "gone",
      failing_since: at,
      blocked_until: at,
    },
  });
  const models = await prisma.webhookEndpoint.findMany({ where: { id: { in: ["whk_1", "whk_2"] } } });
  const rows = await findWebhookEndpointsByIds(prisma, ["whk_1", "whk_2", "whk_missing"]);
  expect(byId(rows)).toEqual(byId(models));
  expect(await findWebhookEndpointsByIds(prisma, [])).toEqual([]);
  expect(await findEnabledWebhookEndpoints(prisma)).toEqual([{ id: "whk_1", events: ["*"] }]);
});
