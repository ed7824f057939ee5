import { messageLinkTokens, newId } from "@svc/core";
import { startHarness, type Harness } from "./service-harness";

// POST /v1/messages/{id}/engagement and POST /v1/track/{token} through the whole API.

let h: Harness;
const SECRET = "s".repeat(48);

beforeAll(async () => {
  h = await startHarness("engagement_api");
  await h.prisma.category.create({ data: { key: "weekly", fatigue: { after: 2, pause: 86400 } } });
});
afterAll(() => h.close());

async function message(
  fields: { status?: "sent" | "queued"; agent_key?: string | null; category?: string } = {},
) {
  const person = await h.prisma.recipient.create({
    data: { id: newId("recipient"), external_id: `p-${newId("recipient")}` },
  });
  const id = newId("message");
  const tokens = messageLinkTokens(SECRET, { id, link_nonce: "nonce" });
  const row = await h.prisma.message.create({
    data: {
      id,
      status: fields.status ?? "sent",
      recipient_id: person.id,
      recipient_external_id: person.external_id,
      sender: fields.agent_key ?? "backend",
      agent_key: fields.agent_key ?? null,
      category: fields.category ?? "transactional",
      importance: "normal",
      claimed_importance: "normal",
      channels: ["email"],
      channel: fields.status === "queued" ? null : "email",
      send_at: new Date(),
      sent_at: fields.status === "queued" ? null : new Date(),
      link_nonce: "nonce",
      tracking_token_hash: tokens.trackingHash,
    },
  });
  return { row, person, trackingToken: tokens.tracking };
}

describe("POST /v1/messages/{id}/engagement", () => {
  test("delivered: sent -> delivered with delivered_at; a repeat is 202 and changes nothing", async () => {
    const { row } = await message();
    const first = await h
      .as()
      .post(`/v1/messages/${row.id}/engagement`)
      .send({ type: "delivered" })
      .expect(202);
    expect(first.body).toEqual({ message_id: row.id, type: "delivered", recorded: true });
    const after = await h.prisma.message.findUniqueOrThrow({ where: { id: row.id } });
    expect(after.status).toBe("delivered");
    expect(after.delivered_at).not.toBeNull();

    const repeat = await h
      .as()
      .post(`/v1/messages/${row.id}/engagement`)
      .send({ type: "delivered" })
      .expect(202);
    expect(repeat.body).toEqual({ message_id: row.id, type: "delivered", recorded: false });
    expect((await h.prisma.message.findUniqueOrThrow({ where: { id: row.id } })).delivered_at).toEqual(
      after.delivered_at,
    );
    expect(await h.prisma.engagement.count({ where: { message_id: row.id } })).toBe(1);
  });

  test("delivered on a message not sent yet is recorded but leaves the status (delivery applies it at send)", async () => {
    const { row } = await message({ status: "queued" });
    await h.as().post(`/v1/messages/${row.id}/engagement`).send({ type: "delivered" }).expect(202);
    expect(await h.prisma.message.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      status: "queued",
      delivered_at: null,
    });
  });

  test("opened stamps engagement.opened_at, ends the fatigue pause of the category and shows on the message", async () => {
    const { row, person } = await message({ category: "weekly" });
    await h.prisma.fatigueState.create({
      data: {
        recipient_id: person.id,
        category: "weekly",
        sent_since_engagement: 3,
        paused_until: new Date(Date.now() + 86_400_000),
      },
    });
    await h.as().post(`/v1/messages/${row.id}/engagement`).send({ type: "opened" }).expect(202);
    const state = await h.prisma.fatigueState.findUniqueOrThrow({
      where: { recipient_id_category: { recipient_id: person.id, category: "weekly" } },
    });
    expect(state).toMatchObject({
      sent_since_engagement: 0,
      paused_until: null,
      probe_message_id: null,
      probe_sent_at: null,
    });
    const view = await h.as().get(`/v1/messages/${row.id}`).expect(200);
    expect(view.body.status).toBe("sent");
    expect(view.body.engagement.opened_at).toEqual(expect.any(String));
    expect(view.body.engagement).toMatchObject({ clicked_at: null, converted_at: null });
    expect(view.body.attempts).toEqual([]);
  });

  test.each(["clicked", "converted"] as const)("%s stamps its own field", async (type) => {
    const { row } = await message();
    await h.as().post(`/v1/messages/${row.id}/engagement`).send({ type }).expect(202);
    const view = await h.as().get(`/v1/messages/${row.id}`).expect(200);
    expect(view.body.engagement[`${type}_at`]).toEqual(expect.any(String));
    expect(view.body.engagement.opened_at).toBeNull();
  });

  test("access: events:write needed; agent keys only for their own messages; unknown id 404; bad type 422", async () => {
    const { row: backendMessage } = await message();
    const readOnly = await h.keyWith(["messages:read"]);
    await h
      .as(readOnly)
      .post(`/v1/messages/${backendMessage.id}/engagement`)
      .send({ type: "opened" })
      .expect(403);
    const agentKey = await h.keyWith(["events:write"], "engagement-agent");
    await h
      .as(agentKey)
      .post(`/v1/messages/${backendMessage.id}/engagement`)
      .send({ type: "opened" })
      .expect(403);
    const { row: own } = await message({ agent_key: "engagement-agent" });
    await h.as(agentKey).post(`/v1/messages/${own.id}/engagement`).send({ type: "opened" }).expect(202);
    await h.as().post(`/v1/messages/msg_missing/engagement`).send({ type: "opened" }).expect(404);
    const bad = await h.as().post(`/v1/messages/${own.id}/engagement`).send({ type: "read" }).expect(422);
    expect(bad.body.errors[0].loc).toEqual(["body", "type"]);
    await h.as().post(`/v1/messages/${own.id}/engagement`).send({ type: "opened", extra: 1 }).expect(422);
  });
});

describe("POST /v1/track/{token}", () => {
  test("the tracking token authenticates without an API key; repeats are 202 and idempotent", async () => {
    const { row, trackingToken } = await message();
    const first = await h
      .as("")
      .post(`/v1/track/${trackingToken}`)
      .unset("Authorization")
      .send({ type: "clicked" })
      .expect(202);
    expect(first.body).toEqual({ message_id: row.id, type: "clicked", recorded: true });
    const again = await h
      .as("")
      .post(`/v1/track/${trackingToken}`)
      .unset("Authorization")
      .send({ type: "clicked" })
      .expect(202);
    expect(again.body.recorded).toBe(false);
    expect(await h.prisma.message.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      clicked_at: expect.any(Date),
    });
  });

  test.each([
    ["well-formed but unknown", "A".repeat(43)],
    ["not token-shaped", "nope"],
  ])("an unknown token is 404 (%s)", async (_name, token) => {
    const res = await h
      .as("")
      .post(`/v1/track/${token}`)
      .unset("Authorization")
      .send({ type: "opened" })
      .expect(404);
    expect(res.body).toMatchObject({ status: 404, title: "Not found" });
  });
});
