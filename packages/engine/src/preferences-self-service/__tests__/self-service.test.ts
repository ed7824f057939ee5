import { parseConfig, type SvcConfig } from "@svc/config";
import { AppError, linkTokenHash, messageLinkTokens, newId, type Principal } from "@svc/core";
import { createQueues, type Queues } from "@svc/queue";
import { Prisma } from "@svc/store";
import {
  createTestDatabase,
  testRedisPrefix,
  webhookEventsIn,
  type TestDatabase,
  type TestRedisPrefix,
} from "@svc/testkit";
import {
  changeOwnPreferences,
  getOwnPreferences,
  oneClickUnsubscribe,
  type SelfServiceRequest,
} from "../change-own-preferences";
import { issuePreferenceToken } from "../preference-token";
import { categoryOnPage, unsubscribeConfirmation } from "../unsubscribe-page";

// A person's own preferences through a link (docs/preferences.md "Links", "Self-service",
// "One-click unsubscribe", "Consent ledger"): the backend issues and rotates the preference token;
// the token (or a message's unsubscribe token) reads and changes what the person may change, every
// change goes to the ledger with its provenance, and one-click leaves the message's category once.

const NOW = new Date("2024-01-15T12:00:00.000Z");
const SECRET = "s".repeat(48);

let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
let config: SvcConfig;
let clock: Date;
const now = () => clock;
const backend: Principal = { keyId: "key_backend", keyName: "backend", scopes: ["admin"], agentKey: null };
const page: SelfServiceRequest = { method: "hosted_page", ip: "203.0.113.7", user_agent: "Firefox" };

beforeAll(async () => {
  db = await createTestDatabase("engine_self_service");
  redis = testRedisPrefix("engine_self_service");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  config = parseConfig(
    {
      api: { public_url: "https://svc.example/" },
      channels: {
        sms: { provider: "console" },
        email: { provider: "console" },
        push: { provider: "console" },
      },
    },
    { SVC_SECRET_KEY: SECRET },
  );
  // Built in: `transactional` (no unsubscribe) and `marketing`. Two more that may be left, one that may not.
  await db.prisma.category.createMany({
    data: [
      { key: "news", description: "Our newsletter", allow_unsubscribe: true },
      { key: "tips", description: "Tips and tricks", allow_unsubscribe: true },
      { key: "security", description: "Security alerts", allow_unsubscribe: false },
    ],
  });
});
afterAll(async () => {
  await queues.close();
  await redis.cleanup();
  await db.drop();
});
beforeEach(() => {
  clock = NOW;
});

const deps = () => ({ prisma: db.prisma, config, queues, now });

let people = 0;
async function person(fields: Partial<Prisma.RecipientCreateInput> = {}) {
  const externalId = `self-${++people}`;
  return db.prisma.recipient.create({ data: { id: newId("recipient"), external_id: externalId, ...fields } });
}

/** A sent message of `category` to the person, and the unsubscribe token its links carry. */
async function unsubscribeLink(recipient: { id: string; external_id: string }, category: string) {
  const id = newId("message");
  const tokens = messageLinkTokens(SECRET, { id, link_nonce: `nonce-${id}` });
  await db.prisma.message.create({
    data: {
      id,
      status: "sent",
      recipient_id: recipient.id,
      recipient_external_id: recipient.external_id,
      sender: "backend",
      category,
      importance: "normal",
      claimed_importance: "normal",
      channels: ["email"],
      send_at: NOW,
      link_nonce: `nonce-${id}`,
      unsubscribe_token_hash: tokens.unsubscribeHash,
    },
  });
  return { messageId: id, token: tokens.unsubscribe };
}

const ledgerOf = (recipientId: string) =>
  db.prisma.consentEntry.findMany({ where: { recipient_id: recipientId }, orderBy: { id: "asc" } });

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("issuePreferenceToken", () => {
  test("a token and its absolute URL; only the hash is stored; a new one kills the old at once", async () => {
    const ada = await person({ locale: "de-AT" });
    const first = await issuePreferenceToken(deps(), backend, ada.external_id);
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.url).toBe(`https://svc.example/preferences/${first.token}`);
    const stored = await db.prisma.preferenceToken.findUniqueOrThrow({ where: { recipient_id: ada.id } });
    expect(stored).toMatchObject({ token_hash: linkTokenHash(first.token), created_at: NOW });
    expect(JSON.stringify(stored)).not.toContain(first.token);
    // The person's inbox tokens go with the old token: their streams are told.
    expect(
      await db.prisma.outboxEntry.findMany({
        where: { topic: "inbox.revoked" },
        select: { payload: true, notify: true },
      }),
    ).toEqual([{ payload: { recipient_id: ada.id }, notify: `inbox:${ada.id}` }]);

    expect((await getOwnPreferences(deps(), first.token)).locale).toBe("de-AT");
    const second = await issuePreferenceToken(deps(), backend, ada.external_id);
    expect(second.token).not.toBe(first.token);
    expect(await refusal(getOwnPreferences(deps(), first.token))).toMatchObject({
      code: "not_found",
      status: 404,
    });
    expect((await getOwnPreferences(deps(), second.token)).locale).toBe("de-AT");
  });

  test("agent keys 403, unknown people 404, no SVC_SECRET_KEY 503; without public_url the URL is the path", async () => {
    const bo = await person();
    const agentKey: Principal = { ...backend, scopes: ["recipients:write"], agentKey: "helper" };
    expect(await refusal(issuePreferenceToken(deps(), agentKey, bo.external_id))).toMatchObject({
      code: "forbidden",
      status: 403,
    });
    expect(await refusal(issuePreferenceToken(deps(), backend, "nobody"))).toMatchObject({
      code: "not_found",
      status: 404,
    });
    const keyless = parseConfig({}, {});
    expect(
      await refusal(issuePreferenceToken({ ...deps(), config: keyless }, backend, bo.external_id)),
    ).toMatchObject({ code: "unavailable", status: 503 });
    expect(await db.prisma.preferenceToken.count({ where: { recipient_id: bo.id } })).toBe(0);
    const noPublicUrl = parseConfig({}, { SVC_SECRET_KEY: SECRET });
    const { token, url } = await issuePreferenceToken(
      { ...deps(), config: noPublicUrl },
      backend,
      bo.external_id,
    );
    expect(url).toBe(`/preferences/${token}`);
  });
});

describe("getOwnPreferences", () => {
  test("with the preference token: only categories that may be left, the configured channels, no link category", async () => {
    const cy = await person({
      locale: "en-GB",
      unsubscribed_categories: ["tips"],
      muted_channels: ["sms", "fax"],
      quiet_hours: { start: "22:00", end: "07:00" },
    });
    const { token } = await issuePreferenceToken(deps(), backend, cy.external_id);
    expect(await getOwnPreferences(deps(), token)).toEqual({
      locale: "en-GB",
      unsubscribed_categories: ["tips"],
      muted_channels: ["sms", "fax"],
      quiet_hours: { start: "22:00", end: "07:00" },
      categories: [
        {
          key: "marketing",
          description:
            "Promotional messages: 2 per day, 5 per week, quiet hours respected, unsubscribe allowed.",
          subscribed: true,
        },
        { key: "news", description: "Our newsletter", subscribed: true },
        { key: "tips", description: "Tips and tricks", subscribed: false },
      ],
      channels: [
        { name: "email", muted: false },
        { name: "push", muted: false },
        { name: "sms", muted: true },
      ],
      link_category: null,
    });
  });

  test("a message's unsubscribe token works too and names its category; unknown and malformed tokens are 404", async () => {
    const dee = await person();
    const { token } = await unsubscribeLink(dee, "news");
    expect(await getOwnPreferences(deps(), token)).toMatchObject({
      link_category: "news",
      unsubscribed_categories: [],
    });
    for (const bad of ["A".repeat(43), "not-a-token", ""])
      expect(await refusal(getOwnPreferences(deps(), bad))).toMatchObject({ code: "not_found", status: 404 });
  });
});

describe("changeOwnPreferences", () => {
  test("given fields replace the stored ones; one ledger entry with the page's provenance and its webhook event", async () => {
    const eve = await person({ muted_channels: ["push"] });
    const { token } = await issuePreferenceToken(deps(), backend, eve.external_id);
    clock = new Date(NOW.getTime() + 60_000);
    const view = await changeOwnPreferences(
      deps(),
      token,
      { unsubscribed_categories: ["news", "marketing"], quiet_hours: { start: "21:00", end: "08:00" } },
      page,
    );
    expect(view).toMatchObject({
      unsubscribed_categories: ["news", "marketing"],
      muted_channels: ["push"], // not given: kept
      quiet_hours: { start: "21:00", end: "08:00" },
    });
    expect(await db.prisma.recipient.findUniqueOrThrow({ where: { id: eve.id } })).toMatchObject({
      unsubscribed_categories: ["news", "marketing"],
      muted_channels: ["push"],
      quiet_hours: { start: "21:00", end: "08:00" },
      updated_at: clock,
    });
    const changes = {
      unsubscribed_categories: { added: ["news", "marketing"], removed: [] },
      quiet_hours: { from: null, to: { start: "21:00", end: "08:00" } },
    };
    expect(await ledgerOf(eve.id)).toEqual([
      expect.objectContaining({
        source: "self_service",
        changes,
        provenance: { method: "hosted_page", ip: "203.0.113.7", user_agent: "Firefox" },
        created_at: clock,
      }),
    ]);
    expect(await webhookEventsIn(db.prisma, eve.id)).toEqual([
      {
        type: "recipient.preferences_changed",
        occurred_at: clock.toISOString(),
        subject: { kind: "recipient", id: eve.id },
        snapshot: {
          external_id: eve.external_id,
          source: "self_service",
          changes,
          created_at: clock.toISOString(),
        },
      },
    ]);
    // The same again (quiet hours in another key order) changes nothing and records nothing.
    await changeOwnPreferences(
      deps(),
      token,
      { unsubscribed_categories: ["marketing", "news"], quiet_hours: { end: "08:00", start: "21:00" } },
      page,
    );
    expect(await ledgerOf(eve.id)).toHaveLength(1);
  });

  test("through an unsubscribe token the provenance names the message (preference API)", async () => {
    const fay = await person();
    const { token, messageId } = await unsubscribeLink(fay, "tips");
    await changeOwnPreferences(
      deps(),
      token,
      { muted_channels: ["sms"] },
      {
        method: "preference_api",
        ip: null,
        user_agent: null,
      },
    );
    expect((await ledgerOf(fay.id)).map((e) => e.provenance)).toEqual([
      { method: "preference_api", ip: null, user_agent: null, message_id: messageId },
    ]);
  });

  test("only optional categories and configured channels; bad quiet hours; all refused at once, nothing written", async () => {
    // `security` was left while it still allowed it; keeping that choice (and an old mute) is fine.
    const gus = await person({ unsubscribed_categories: ["security"], muted_channels: ["fax"] });
    const { token } = await issuePreferenceToken(deps(), backend, gus.external_id);
    const error = await refusal(
      changeOwnPreferences(
        deps(),
        token,
        {
          unsubscribed_categories: ["security", "news", "transactional"],
          muted_channels: ["fax", "pigeon"],
          quiet_hours: { start: "24:00", end: "7:00" },
        },
        page,
      ),
    );
    expect(error).toMatchObject({ code: "validation", status: 422 });
    expect(error.errors).toEqual([
      {
        loc: ["body", "unsubscribed_categories", 2],
        msg: "category 'transactional' cannot be left",
        type: "value_error",
      },
      { loc: ["body", "muted_channels", 1], msg: "no channel 'pigeon'", type: "value_error" },
      { loc: ["body", "quiet_hours", "start"], msg: "expected a time of day HH:MM", type: "format" },
      { loc: ["body", "quiet_hours", "end"], msg: "expected a time of day HH:MM", type: "format" },
    ]);
    expect(await ledgerOf(gus.id)).toEqual([]);
    expect(await db.prisma.recipient.findUniqueOrThrow({ where: { id: gus.id } })).toMatchObject({
      unsubscribed_categories: ["security"],
      muted_channels: ["fax"],
    });
    const kept = await changeOwnPreferences(
      deps(),
      token,
      { unsubscribed_categories: ["security", "news"], muted_channels: ["fax", "email"] },
      page,
    );
    expect(kept).toMatchObject({
      unsubscribed_categories: ["security", "news"],
      muted_channels: ["fax", "email"],
    });
  });
});

describe("one-click unsubscribe", () => {
  test("leaves the message's category once: a repeat succeeds, changes nothing and records nothing", async () => {
    const hal = await person({ locale: "de", unsubscribed_categories: ["tips"] });
    const { token, messageId } = await unsubscribeLink(hal, "news");
    const request = { ip: "198.51.100.1", user_agent: "Mail/1.0" };
    expect(await oneClickUnsubscribe(deps(), token, request)).toEqual({
      category: "news",
      changed: true,
      locale: "de",
    });
    expect(await oneClickUnsubscribe(deps(), token, request)).toEqual({
      category: "news",
      changed: false,
      locale: "de",
    });
    expect(
      (await db.prisma.recipient.findUniqueOrThrow({ where: { id: hal.id } })).unsubscribed_categories,
    ).toEqual(["tips", "news"]);
    expect(await ledgerOf(hal.id)).toEqual([
      expect.objectContaining({
        source: "one_click",
        changes: { unsubscribed_categories: { added: ["news"], removed: [] } },
        provenance: {
          method: "one_click",
          ip: "198.51.100.1",
          user_agent: "Mail/1.0",
          message_id: messageId,
        },
      }),
    ]);
  });

  test("a preference token is 404; a category that may not be left is 422; neither writes anything", async () => {
    const ivy = await person();
    const preferences = await issuePreferenceToken(deps(), backend, ivy.external_id);
    expect(
      await refusal(oneClickUnsubscribe(deps(), preferences.token, { ip: null, user_agent: null })),
    ).toMatchObject({
      code: "not_found",
      status: 404,
    });
    const receipt = await unsubscribeLink(ivy, "transactional");
    expect(
      await refusal(oneClickUnsubscribe(deps(), receipt.token, { ip: null, user_agent: null })),
    ).toMatchObject({
      code: "unprocessable",
      status: 422,
    });
    expect(await ledgerOf(ivy.id)).toEqual([]);
    expect(
      (await db.prisma.recipient.findUniqueOrThrow({ where: { id: ivy.id } })).unsubscribed_categories,
    ).toEqual([]);
  });

  test("concurrent one-clicks of one person are serialised: no lost category, one entry per change", async () => {
    const jo = await person();
    const news = await unsubscribeLink(jo, "news");
    const tips = await unsubscribeLink(jo, "tips");
    const request = { ip: null, user_agent: null };
    const results = await Promise.all([
      ...Array.from({ length: 3 }, () => oneClickUnsubscribe(deps(), news.token, request)),
      ...Array.from({ length: 3 }, () => oneClickUnsubscribe(deps(), tips.token, request)),
    ]);
    expect(results.filter((r) => r.category === "news" && r.changed)).toHaveLength(1);
    expect(results.filter((r) => r.category === "tips" && r.changed)).toHaveLength(1);
    const row = await db.prisma.recipient.findUniqueOrThrow({ where: { id: jo.id } });
    expect([...row.unsubscribed_categories].sort()).toEqual(["news", "tips"]);
    expect(await ledgerOf(jo.id)).toHaveLength(2);
  });
});

describe("the unsubscribe confirmation page", () => {
  test("an unsubscribe link shows the locale and category and changes nothing; a preference link has none", async () => {
    const kim = await person({ locale: "de-AT" });
    const { token } = await unsubscribeLink(kim, "news");
    expect(await unsubscribeConfirmation(deps(), token)).toEqual({
      locale: "de-AT",
      category: { key: "news", description: "Our newsletter" },
    });
    expect(
      (await db.prisma.recipient.findUniqueOrThrow({ where: { id: kim.id } })).unsubscribed_categories,
    ).toEqual([]);
    const preferences = await issuePreferenceToken(deps(), backend, kim.external_id);
    expect(await unsubscribeConfirmation(deps(), preferences.token)).toBeNull();
    expect(await refusal(unsubscribeConfirmation(deps(), "B".repeat(43)))).toMatchObject({
      code: "not_found",
    });
    // A category deleted since the message was sent is named by its key alone.
    expect(await categoryOnPage(db.prisma, "gone")).toEqual({ key: "gone", description: "" });
  });
});
