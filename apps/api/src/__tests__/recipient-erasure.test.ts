import { createHash, randomBytes } from "node:crypto";
import request from "supertest";
import { newId } from "@svc/core";
import { changePreferences } from "@svc/engine";
import { jobIdFor, queueOf, type JobName, type JobPayload } from "@svc/queue";
import type { Harness } from "./service-harness";
import {
  linksOf,
  makeMessage,
  makePerson,
  startRightsHarness,
  tokenOfUrl,
} from "./recipient-rights-fixtures";

// DELETE /v1/recipients/{external_id}: every row keyed to the person goes, a text STOP stays as a
// hash, queued jobs are removed, and nobody else's rows are touched.

const NUMBER = "+15551230001";
let h: Harness;

beforeAll(async () => {
  h = await startRightsHarness("recipient_erasure", {
    config: {
      api: { public_url: "https://prefs.example.com" },
      channels: { email: { provider: "console" }, sms: { provider: "console" } },
      compliance: { sms_channels: ["sms"] },
    },
  });
  await h.prisma.rule.create({
    data: {
      key: "welcome",
      event: "user.signed_up",
      template: "t",
      category: "marketing",
      channels: ["email"],
    },
  });
}, 60_000);
afterAll(() => h.close());

const day = 86_400_000;

/** A person with something in every table that can hold their data, and jobs in every queue. */
async function seedEverything(externalId: string, number: string) {
  const person = await makePerson(h, externalId, {
    locale: "de",
    addresses: [
      { channel: "sms", value: number },
      { channel: "email", value: `${externalId}@example.com` },
    ],
  });
  // A text STOP: texts muted, optional categories left, ledger source sms_keyword.
  await h.prisma.$transaction((tx) =>
    changePreferences(
      tx,
      person.id,
      { muted_channels: ["sms"], unsubscribed_categories: ["marketing"] },
      {
        source: "sms_keyword",
        provenance: {
          method: "sms_reply",
          keyword: "quit",
          from: number,
          message_id: "SM1",
          provider: "twilio",
        },
      },
      new Date(),
    ),
  );
  await h.as().post(`/v1/recipients/${externalId}/preference-token`).expect(201);
  await h
    .as()
    .post(`/v1/recipients/${externalId}/consent`)
    .send({
      categories: ["marketing"],
      disclosure: "ok",
      method: "form",
      source: "web",
      expires_at: "2099-01-01T00:00:00Z",
    })
    .expect(201);
  await h.prisma.fatigueState.create({
    data: { recipient_id: person.id, category: "marketing", sent_since_engagement: 2 },
  });

  const event = await h.prisma.event.create({
    data: {
      id: newId("event"),
      name: "user.signed_up",
      sender: "backend",
      recipient_id: person.id,
      recipient_external_id: externalId,
      status: "processed",
    },
  });
  // Accepted but not yet ingested: only the external id names the person.
  const pending = await h.prisma.event.create({
    data: {
      id: newId("event"),
      name: "user.signed_up",
      sender: "backend",
      recipient_external_id: externalId,
    },
  });
  const message = await makeMessage(h, person, { status: "queued", event_id: event.id, generation: 1 });
  await h.prisma.eventOutcome.create({
    data: {
      event_id: event.id,
      rule_key: "welcome",
      position: 0,
      matched: true,
      message_id: message.id,
      status: "queued",
    },
  });
  await h.prisma.deliveryAttempt.create({
    data: {
      id: newId("attempt"),
      message_id: message.id,
      channel: "sms",
      provider: "console",
      address: number,
      ok: true,
    },
  });
  await h.prisma.engagement.create({ data: { message_id: message.id, type: "opened", source: "api" } });
  const digest = await h.prisma.digest.create({
    data: {
      id: newId("digest"),
      rule_key: "welcome",
      recipient_id: person.id,
      recipient_external_id: externalId,
      key: "k",
      open_key: `welcome|${person.id}|k`,
      closes_at: new Date(Date.now() + day),
    },
  });
  await h.prisma.digestItem.create({
    data: { digest_id: digest.id, event_id: event.id, position: 0, data: { n: 1 }, event_at: new Date() },
  });
  await h.prisma.reviewLink.create({
    data: {
      id: newId("reviewLink"),
      token_hash: randomBytes(32).toString("hex"),
      nonce: "n",
      message_id: message.id,
      reviewer: "someone-else",
      expires_at: new Date(Date.now() + day),
    },
  });
  const callback = await h.prisma.callbackDelivery.create({
    data: { id: newId("callback"), kind: "message", subject_id: message.id, body: {} },
  });
  await h.prisma.inboundReply.create({
    data: {
      id: newId("inbound"),
      provider: "twilio",
      provider_message_id: `SM-${externalId}`,
      from: number,
      body: "QUIT",
      keyword: "quit",
      action: "stop",
    },
  });
  const links = await linksOf(h, message);

  const jobs: { name: JobName; payload: JobPayload<JobName> }[] = [
    { name: "ingest-event", payload: { eventId: pending.id } },
    { name: "apply-policy", payload: { eventId: event.id, ruleKey: "welcome" } },
    { name: "deliver-message", payload: { messageId: message.id, generation: 0 } },
    { name: "deliver-message", payload: { messageId: message.id, generation: 1 } },
    { name: "screen-message", payload: { messageId: message.id, generation: 1 } },
    { name: "close-digest", payload: { digestId: digest.id } },
    { name: "send-callback", payload: { callbackId: callback.id } },
  ];
  for (const job of jobs) await h.queues.enqueue(job.name, job.payload as never, { delay: day });
  return { person, event, pending, message, digest, callback, links, jobs };
}

const jobExists = async (job: { name: JobName; payload: JobPayload<JobName> }) =>
  (await h.queues.queue(queueOf(job.name)).getJob(jobIdFor(job.name, job.payload as never))) !== undefined;

/** Rows in any table whose person-naming or person-owned columns hold one of the values. */
async function rowsMentioning(values: string[]): Promise<Record<string, number>> {
  const columns = await h.prisma.$queryRawUnsafe<{ table_name: string; column_name: string }[]>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = 'public' AND data_type IN ('text', 'character varying') AND table_name <> '_prisma_migrations'`,
  );
  const found: Record<string, number> = {};
  for (const { table_name, column_name } of columns) {
    const [row] = await h.prisma.$queryRawUnsafe<{ n: bigint }[]>(
      `SELECT count(*) AS n FROM "${table_name}" WHERE "${column_name}" = ANY($1::text[])`,
      values,
    );
    if (row && row.n > 0n) found[`${table_name}.${column_name}`] = Number(row.n);
  }
  return found;
}

it("erases every row keyed to the person, keeps a text STOP as a hash, removes their jobs, leaves others alone", async () => {
  const gone = await seedEverything("erase-me", NUMBER);
  const kept = await seedEverything("keep-me", "+15559870002");
  const tables = await h.prisma.$queryRawUnsafe<{ table_name: string }[]>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const ids = [
    gone.person.id,
    "erase-me",
    "erase-me@example.com",
    gone.event.id,
    gone.pending.id,
    gone.message.id,
    gone.digest.id,
    gone.callback.id,
    NUMBER,
  ];
  const keptIds = [
    kept.person.id,
    "keep-me",
    kept.event.id,
    kept.pending.id,
    kept.message.id,
    kept.digest.id,
    kept.callback.id,
  ];
  const before = await rowsMentioning(ids);
  const keptBefore = await rowsMentioning(keptIds);
  // The seed reaches every table that has a person's rows (sanity check of the seed itself).
  expect(Object.keys(before).map((c) => c.split(".")[0])).toEqual(
    expect.arrayContaining([
      "recipients",
      "addresses",
      "preference_tokens",
      "consent_entries",
      "consents",
      "fatigue_states",
      "events",
      "event_outcomes",
      "messages",
      "delivery_attempts",
      "engagements",
      "digests",
      "digest_items",
      "review_links",
      "callback_deliveries",
      "inbound_replies",
    ]),
  );
  expect(tables.length).toBeGreaterThanOrEqual(20);
  for (const job of gone.jobs) expect(await jobExists(job)).toBe(true);

  await h.as().delete("/v1/recipients/erase-me").expect(204);

  expect(await rowsMentioning(ids)).toEqual({});
  for (const job of gone.jobs) expect(await jobExists(job)).toBe(false);

  const suppression = await h.prisma.smsSuppression.findUniqueOrThrow({
    where: { phone_sha256: createHash("sha256").update(NUMBER).digest("hex") },
  });
  expect(suppression.keyword).toBe("quit");

  // The other person is untouched.
  expect(Object.keys(keptBefore).length).toBeGreaterThanOrEqual(15);
  expect(await rowsMentioning(keptIds)).toEqual(keptBefore);
  for (const job of kept.jobs) expect(await jobExists(job)).toBe(true);
  expect(await h.prisma.smsSuppression.count()).toBe(1);
});

it("afterwards every read is 404, links included", async () => {
  const { links, message, event } = await seedEverything("erase-reads", "+15551230003");
  const prefToken = (await h.as().post("/v1/recipients/erase-reads/preference-token").expect(201)).body
    .token as string;
  await h.as().delete("/v1/recipients/erase-reads").expect(204);

  for (const path of [
    "/v1/recipients/erase-reads",
    "/v1/recipients/erase-reads/preferences/history",
    `/v1/messages/${message.id}`,
    `/v1/events/${event.id}`,
  ]) {
    await h.as().get(path).expect(404);
  }
  await h.as().post("/v1/recipients/erase-reads/preference-token").expect(404);
  await h.as().delete("/v1/recipients/erase-reads").expect(404);
  await request(h.app).get(`/v1/preferences/${prefToken}`).expect(404);
  const page = await request(h.app)
    .get(`/preferences/${tokenOfUrl(links.unsubscribe_url!)}`)
    .expect(404);
  expect(page.headers["content-type"]).toMatch(/^text\/html/);
  await request(h.app)
    .post(`/preferences/${tokenOfUrl(links.unsubscribe_url!)}/unsubscribe`)
    .type("form")
    .send("List-Unsubscribe=One-Click")
    .expect(404);
});

it("keeps no suppression when texts were not muted", async () => {
  await makePerson(h, "erase-unmuted", { addresses: [{ channel: "sms", value: "+15551230004" }] });
  await h.as().delete("/v1/recipients/erase-unmuted").expect(204);
  expect(
    await h.prisma.smsSuppression.findUnique({
      where: { phone_sha256: createHash("sha256").update("+15551230004").digest("hex") },
    }),
  ).toBeNull();
});

it("erases a person known only from an accepted event, and its ingest job", async () => {
  const event = await h.prisma.event.create({
    data: { id: newId("event"), name: "x", sender: "backend", recipient_external_id: "only-event" },
  });
  await h.queues.enqueue("ingest-event", { eventId: event.id }, { delay: day });
  await h.as().delete("/v1/recipients/only-event").expect(204);
  expect(await h.prisma.event.findUnique({ where: { id: event.id } })).toBeNull();
  expect(await jobExists({ name: "ingest-event", payload: { eventId: event.id } })).toBe(false);
});

it("runs concurrently with itself: one 204, then 404", async () => {
  await makePerson(h, "erase-twice");
  const statuses = await Promise.all([
    h.as().delete("/v1/recipients/erase-twice"),
    h.as().delete("/v1/recipients/erase-twice"),
  ]);
  expect(statuses.map((r) => r.status).sort()).toEqual([204, 404]);
});

it("403 for agent keys", async () => {
  await makePerson(h, "erase-agent");
  const agentKey = await h.keyWith(["recipients:read", "recipients:write"], "helper-bot");
  const res = await h.as(agentKey).delete("/v1/recipients/erase-agent").expect(403);
  expect(res.body.detail).toBe("agent keys may not change recipients");
  await h.as().get("/v1/recipients/erase-agent").expect(200);
});
