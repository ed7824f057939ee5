import { AppError, messageLinkTokens, newId, type Principal } from "@svc/core";
import type { MessageStatus } from "@svc/store";
import { createTestDatabase, webhookEventsIn, type TestDatabase } from "@svc/testkit";
import { recordMessageEngagement, recordTrackedEngagement } from "../record-engagement";

// Engagement reports (docs/messages.md "Engagement and tracking"; docs/policy.md "Fatigue" 5):
// `delivered` moves `sent` to `delivered`; opened, clicked and converted stamp the message and end
// the person's fatigue for its category; each type once per message, repeats change nothing.

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("engine_engagement");
  await db.prisma.category.create({ data: { key: "weekly", fatigue: { after: 2, pause: 86400 } } });
});
afterAll(() => db.drop());

const SECRET = "engagement-test-secret-".padEnd(48, "x");
const BACKEND: Principal = { keyId: "key_backend1", keyName: "backend", scopes: ["admin"], agentKey: null };
const agentKey = (agent: string): Principal => ({
  keyId: `key_${agent}`,
  keyName: agent,
  scopes: ["events:write"],
  agentKey: agent,
});
const NOW = new Date("2025-02-10T15:30:00.000Z");
const later = (ms: number) => new Date(NOW.getTime() + ms);
const deps = (now: Date = NOW) => ({ prisma: db.prisma, now: () => now });
const SENT_AT = new Date("2025-02-10T15:00:00.000Z");

/** A message to a new person (sent by default), with its tracking and unsubscribe hashes stored. */
async function message(fields: { status?: MessageStatus; agent?: string | null; category?: string } = {}) {
  const person = await db.prisma.recipient.create({
    data: { id: newId("recipient"), external_id: `eng-${newId("recipient")}` },
  });
  const id = newId("message");
  const tokens = messageLinkTokens(SECRET, { id, link_nonce: `nonce-${id}` });
  const status = fields.status ?? "sent";
  const row = await db.prisma.message.create({
    data: {
      id,
      status,
      recipient_id: person.id,
      recipient_external_id: person.external_id,
      sender: fields.agent ?? "backend",
      agent_key: fields.agent ?? null,
      category: fields.category ?? "weekly",
      importance: "normal",
      claimed_importance: "normal",
      channels: ["email"],
      channel: status === "sent" ? "email" : null,
      send_at: SENT_AT,
      sent_at: status === "sent" ? SENT_AT : null,
      link_nonce: `nonce-${id}`,
      tracking_token_hash: tokens.trackingHash,
      unsubscribe_token_hash: tokens.unsubscribeHash,
    },
  });
  return { row, person, tokens };
}

async function pausedFatigue(recipientId: string) {
  await db.prisma.fatigueState.create({
    data: {
      recipient_id: recipientId,
      category: "weekly",
      sent_since_engagement: 4,
      paused_until: later(86_400_000),
      probe_message_id: "msg_probe",
      probe_sent_at: SENT_AT,
    },
  });
}

const fatigueOf = (recipientId: string) =>
  db.prisma.fatigueState.findUniqueOrThrow({
    where: { recipient_id_category: { recipient_id: recipientId, category: "weekly" } },
    select: { sent_since_engagement: true, paused_until: true, probe_message_id: true, probe_sent_at: true },
  });

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error: unknown = await promise.then(
    () => new Error("expected a refusal"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

it("opened: stamps opened_at, keeps the status, records the report once and resets the person's fatigue", async () => {
  const { row, person } = await message();
  await pausedFatigue(person.id);

  const result = await recordMessageEngagement(deps(), BACKEND, row.id, { type: "opened" });
  expect(result).toEqual({ message_id: row.id, type: "opened", recorded: true });
  const after = await db.prisma.message.findUniqueOrThrow({ where: { id: row.id } });
  expect(after).toMatchObject({
    status: "sent",
    opened_at: NOW,
    clicked_at: null,
    converted_at: null,
    delivered_at: null,
  });
  expect(await db.prisma.engagement.findMany({ where: { message_id: row.id } })).toEqual([
    { message_id: row.id, type: "opened", source: "api:key_backend1", created_at: NOW },
  ]);
  expect(await fatigueOf(person.id)).toEqual({
    sent_since_engagement: 0,
    paused_until: null,
    probe_message_id: null,
    probe_sent_at: null,
  });
  expect(await webhookEventsIn(db.prisma, row.id)).toEqual([
    {
      type: "message.engaged",
      occurred_at: NOW.toISOString(),
      subject: { kind: "message", id: row.id },
      snapshot: { status: "sent", status_reason: null, engagement: "opened" },
    },
  ]);
});

it("a repeat answers recorded: false and changes nothing: not the time, not the fatigue counted since, no second event", async () => {
  const { row, person } = await message();
  await recordMessageEngagement(deps(), BACKEND, row.id, { type: "clicked" });
  // Messages counted since the click must survive a repeated report of it.
  await db.prisma.fatigueState.update({
    where: { recipient_id_category: { recipient_id: person.id, category: "weekly" } },
    data: { sent_since_engagement: 3 },
  });

  const again = await recordMessageEngagement(deps(later(60_000)), BACKEND, row.id, { type: "clicked" });
  expect(again).toEqual({ message_id: row.id, type: "clicked", recorded: false });
  expect((await db.prisma.message.findUniqueOrThrow({ where: { id: row.id } })).clicked_at).toEqual(NOW);
  expect((await fatigueOf(person.id)).sent_since_engagement).toBe(3);
  expect((await webhookEventsIn(db.prisma, row.id)).map((e) => e.type)).toEqual(["message.engaged"]);

  // Each type is its own report: converted is still new.
  const converted = await recordMessageEngagement(deps(later(120_000)), BACKEND, row.id, {
    type: "converted",
  });
  expect(converted.recorded).toBe(true);
  expect(await db.prisma.message.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
    clicked_at: NOW,
    converted_at: later(120_000),
    opened_at: null,
  });
});

it("delivered: sent becomes delivered at now with message.delivered; it is not engagement (fatigue untouched)", async () => {
  const { row, person } = await message();
  await pausedFatigue(person.id);
  const result = await recordMessageEngagement(deps(), BACKEND, row.id, { type: "delivered" });
  expect(result).toEqual({ message_id: row.id, type: "delivered", recorded: true });
  expect(await db.prisma.message.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
    status: "delivered",
    delivered_at: NOW,
    opened_at: null,
  });
  expect((await fatigueOf(person.id)).sent_since_engagement).toBe(4);
  expect(await webhookEventsIn(db.prisma, row.id)).toEqual([
    {
      type: "message.delivered",
      occurred_at: NOW.toISOString(),
      subject: { kind: "message", id: row.id },
      snapshot: { status: "delivered", status_reason: null },
    },
  ]);

  const again = await recordMessageEngagement(deps(later(5000)), BACKEND, row.id, { type: "delivered" });
  expect(again.recorded).toBe(false);
  expect((await db.prisma.message.findUniqueOrThrow({ where: { id: row.id } })).delivered_at).toEqual(NOW);
  expect(await webhookEventsIn(db.prisma, row.id)).toHaveLength(1);
});

it("delivered before the message is sent is recorded, but leaves the status to the sent write", async () => {
  const { row } = await message({ status: "sending" });
  const result = await recordMessageEngagement(deps(), BACKEND, row.id, { type: "delivered" });
  expect(result.recorded).toBe(true);
  expect(await db.prisma.message.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
    status: "sending",
    delivered_at: null,
  });
  expect(
    await db.prisma.engagement.findMany({ where: { message_id: row.id }, select: { type: true } }),
  ).toEqual([{ type: "delivered" }]);
  expect(await webhookEventsIn(db.prisma, row.id)).toEqual([]);
});

it("404 for an unknown message; an agent key reaches only its own messages (403, nothing recorded)", async () => {
  const missing = await refusal(
    recordMessageEngagement(deps(), BACKEND, "msg_01JNOSUCHMESSAGE000000000", { type: "opened" }),
  );
  expect({ code: missing.code, status: missing.status }).toEqual({ code: "not_found", status: 404 });

  const backendMessage = await message();
  const otherAgents = await message({ agent: "other-bot" });
  for (const target of [backendMessage, otherAgents]) {
    const error = await refusal(
      recordMessageEngagement(deps(), agentKey("my-bot"), target.row.id, { type: "opened" }),
    );
    expect({ code: error.code, status: error.status }).toEqual({ code: "forbidden", status: 403 });
    expect(await db.prisma.engagement.count({ where: { message_id: target.row.id } })).toBe(0);
  }

  const own = await message({ agent: "my-bot" });
  expect(await recordMessageEngagement(deps(), agentKey("my-bot"), own.row.id, { type: "opened" })).toEqual({
    message_id: own.row.id,
    type: "opened",
    recorded: true,
  });
  expect((await db.prisma.engagement.findFirstOrThrow({ where: { message_id: own.row.id } })).source).toBe(
    "api:key_my-bot",
  );
});

it("a tracking token authenticates its own message (source `track`); unknown, malformed and unsubscribe tokens are 404", async () => {
  const { row, tokens } = await message();
  expect(await recordTrackedEngagement(deps(), tokens.tracking, { type: "opened" })).toEqual({
    message_id: row.id,
    type: "opened",
    recorded: true,
  });
  expect(await db.prisma.engagement.findMany({ where: { message_id: row.id } })).toEqual([
    { message_id: row.id, type: "opened", source: "track", created_at: NOW },
  ]);
  expect(
    (await recordTrackedEngagement(deps(later(1000)), tokens.tracking, { type: "opened" })).recorded,
  ).toBe(false);

  const otherSecret = messageLinkTokens("another-secret".padEnd(48, "y"), {
    id: row.id,
    link_nonce: `nonce-${row.id}`,
  });
  for (const token of [
    tokens.unsubscribe,
    otherSecret.tracking,
    tokens.tracking.slice(1),
    `${tokens.tracking}A`,
    "",
    row.id,
  ]) {
    const error = await refusal(recordTrackedEngagement(deps(), token, { type: "clicked" }));
    expect({ code: error.code, status: error.status }).toEqual({ code: "not_found", status: 404 });
  }
  expect(await db.prisma.engagement.count({ where: { message_id: row.id } })).toBe(1);
});
