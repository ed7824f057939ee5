import { createHash } from "node:crypto";
import request from "supertest";
import { linkTokenHash } from "@svc/core";
import type { Harness } from "./service-harness";
import {
  linksOf,
  makeCategory,
  makeMessage,
  makePerson,
  startRightsHarness,
  tokenOfUrl,
} from "./recipient-rights-fixtures";

// Preference tokens, self-service preferences over the API, the consent ledger and opt-in records.

const PUBLIC_URL = "https://prefs.example.com";
const UA = "rights-test/1";
let h: Harness;
let agentKey: string;

beforeAll(async () => {
  h = await startRightsHarness("recipient_rights_api", {
    config: {
      api: { public_url: PUBLIC_URL },
      channels: { email: { provider: "console" }, sms: { provider: "console" } },
      compliance: { sms_channels: ["sms"] },
    },
  });
  await makeCategory(h, "news", { description: "Product news" });
  await makeCategory(h, "security", { allow_unsubscribe: false });
  agentKey = await h.keyWith(["recipients:read", "recipients:write"], "helper-bot");
}, 60_000);
afterAll(() => h.close());

const issueToken = async (externalId: string) => {
  const res = await h
    .as()
    .post(`/v1/recipients/${encodeURIComponent(externalId)}/preference-token`)
    .expect(201);
  return res.body as { token: string; url: string };
};
const history = async (externalId: string) =>
  (
    await h
      .as()
      .get(`/v1/recipients/${encodeURIComponent(externalId)}/preferences/history`)
      .expect(200)
  ).body.items as Record<string, unknown>[];

describe("preference tokens", () => {
  it("issues a 256-bit token whose SHA-256 alone is stored, with the hosted URL", async () => {
    const person = await makePerson(h, "ptok-1");
    const { token, url } = await issueToken("ptok-1");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url).toBe(`${PUBLIC_URL}/preferences/${token}`);
    const row = await h.prisma.preferenceToken.findUniqueOrThrow({ where: { recipient_id: person.id } });
    expect(row.token_hash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(row.nonce).not.toContain(token);
  });

  it("rotation kills the old token at once", async () => {
    await makePerson(h, "ptok-2");
    const first = await issueToken("ptok-2");
    await request(h.app).get(`/v1/preferences/${first.token}`).expect(200);
    const second = await issueToken("ptok-2");
    expect(second.token).not.toBe(first.token);
    const old = await request(h.app).get(`/v1/preferences/${first.token}`).expect(404);
    expect(old.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(old.body.title).toBe("Not found");
    await request(h.app).get(`/v1/preferences/${second.token}`).expect(200);
    await request(h.app).get(`/preferences/${first.token}`).expect(404);
  });

  it("404 for an unknown person", async () => {
    const res = await h.as().post("/v1/recipients/nobody/preference-token").expect(404);
    expect(res.body.detail).toBe("no recipient 'nobody'");
  });

  it("without a public URL the link is the path on this service, and delivery leaves links out", async () => {
    const other = await startRightsHarness("recipient_rights_nourl");
    try {
      const person = await makePerson(other, "nourl");
      const res = await other.as().post("/v1/recipients/nourl/preference-token").expect(201);
      expect(res.body.url).toBe(`/preferences/${res.body.token}`);
      const links = await linksOf(other, await makeMessage(other, person));
      expect(links).toEqual({
        preferences_url: null,
        unsubscribe_url: null,
        one_click_url: null,
        tracking_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        review_url: null,
      });
    } finally {
      await other.close();
    }
  });

  it("503 when no secret key is configured", async () => {
    const saved = h.config.secrets.secretKey;
    h.config.secrets.secretKey = null;
    try {
      await makePerson(h, "ptok-nokey");
      const res = await h.as().post("/v1/recipients/ptok-nokey/preference-token").expect(503);
      expect(res.body.detail).toBe("links are unavailable: SVC_SECRET_KEY is not set");
    } finally {
      h.config.secrets.secretKey = saved;
    }
  });
});

describe("delivery links", () => {
  it("stores the message's token hashes and gives absolute URLs", async () => {
    const person = await makePerson(h, "links-1");
    const message = await makeMessage(h, person);
    const links = await linksOf(h, message);
    const unsubscribe = tokenOfUrl(links.unsubscribe_url!);
    expect(links.one_click_url).toBe(`${PUBLIC_URL}/preferences/${unsubscribe}/unsubscribe`);
    expect(links.preferences_url).toMatch(new RegExp(`^${PUBLIC_URL}/preferences/[A-Za-z0-9_-]{43}$`));
    const row = await h.prisma.message.findUniqueOrThrow({ where: { id: message.id } });
    expect(row.unsubscribe_token_hash).toBe(linkTokenHash(unsubscribe));
    expect(row.tracking_token_hash).toBe(linkTokenHash(links.tracking_token));
    // Deterministic: a second delivery attempt gives the same links.
    expect(await linksOf(h, message)).toEqual(links);
  });
});

describe("self-service over the API", () => {
  it("reads the categories one may leave and the configured channels", async () => {
    await makePerson(h, "self-1");
    const { token } = await issueToken("self-1");
    const res = await request(h.app).get(`/v1/preferences/${token}`).expect(200);
    expect(res.body).toEqual({
      locale: null,
      unsubscribed_categories: [],
      muted_channels: [],
      quiet_hours: null,
      categories: [
        { key: "marketing", description: expect.any(String), subscribed: true },
        { key: "news", description: "Product news", subscribed: true },
      ],
      channels: [
        { name: "email", muted: false },
        { name: "sms", muted: false },
      ],
      link_category: null,
    });
  });

  it("changes them with a self_service ledger entry and preference_api provenance", async () => {
    await makePerson(h, "self-2");
    const { token } = await issueToken("self-2");
    const res = await request(h.app)
      .put(`/v1/preferences/${token}`)
      .set("User-Agent", UA)
      .send({
        unsubscribed_categories: ["news"],
        muted_channels: ["sms"],
        quiet_hours: { start: "21:00", end: "07:30" },
      })
      .expect(200);
    expect(res.body).toMatchObject({
      unsubscribed_categories: ["news"],
      muted_channels: ["sms"],
      quiet_hours: { start: "21:00", end: "07:30" },
    });
    const recipient = await h.as().get("/v1/recipients/self-2").expect(200);
    expect(recipient.body.preferences).toEqual({
      unsubscribed_categories: ["news"],
      muted_channels: ["sms"],
      quiet_hours: { start: "21:00", end: "07:30" },
    });
    const [entry] = await history("self-2");
    expect(entry).toMatchObject({
      source: "self_service",
      changes: {
        unsubscribed_categories: { added: ["news"], removed: [] },
        muted_channels: { added: ["sms"], removed: [] },
        quiet_hours: { from: null, to: { start: "21:00", end: "07:30" } },
      },
      provenance: { method: "preference_api", ip: expect.stringMatching(/127\.0\.0\.1$/), user_agent: UA },
      categories: [],
      disclosure: null,
    });
  });

  it.each([
    [
      "a category that does not allow leaving",
      { unsubscribed_categories: ["security"] },
      ["body", "unsubscribed_categories", 0],
      "category 'security' cannot be left",
    ],
    [
      "an unknown category",
      { unsubscribed_categories: ["news", "nope"] },
      ["body", "unsubscribed_categories", 1],
      "category 'nope' cannot be left",
    ],
    [
      "an unconfigured channel",
      { muted_channels: ["pigeon"] },
      ["body", "muted_channels", 0],
      "no channel 'pigeon'",
    ],
  ])("422 for %s", async (_name, body, loc, msg) => {
    await makePerson(h, `self-bad-${loc.join("-")}-${msg.length}`);
    const { token } = await issueToken(`self-bad-${loc.join("-")}-${msg.length}`);
    const res = await request(h.app).put(`/v1/preferences/${token}`).send(body).expect(422);
    expect(res.body.errors).toEqual([{ loc, msg, type: "value_error" }]);
  });

  it("404 problem for an unknown token; no key needed or looked at", async () => {
    const res = await request(h.app)
      .put(`/v1/preferences/${"A".repeat(43)}`)
      .send({ muted_channels: [] })
      .expect(404);
    expect(res.body).toMatchObject({ title: "Not found", status: 404 });
  });
});

describe("consent ledger history", () => {
  it("pages newest first", async () => {
    await makePerson(h, "hist-1");
    const { token } = await issueToken("hist-1");
    for (const muted of [["sms"], ["email"], []])
      await request(h.app).put(`/v1/preferences/${token}`).send({ muted_channels: muted }).expect(200);
    const first = await h.as().get("/v1/recipients/hist-1/preferences/history?limit=2").expect(200);
    expect(first.body.items.map((e: { changes: unknown }) => e.changes)).toEqual([
      { muted_channels: { added: [], removed: ["email"] } },
      { muted_channels: { added: ["email"], removed: ["sms"] } },
    ]);
    const second = await h
      .as()
      .get(`/v1/recipients/hist-1/preferences/history?limit=2&cursor=${first.body.next_cursor}`)
      .expect(200);
    expect(second.body.items.map((e: { changes: unknown }) => e.changes)).toEqual([
      { muted_channels: { added: ["sms"], removed: [] } },
    ]);
    expect(second.body.next_cursor).toBeNull();
  });

  it("404 for an unknown person", async () => {
    await h.as().get("/v1/recipients/nobody/preferences/history").expect(404);
  });
});

describe("opt-in records", () => {
  const DISCLOSURE = "Yes, send me product news by e-mail. You can unsubscribe at any time.";
  const consentBody = (extra: Record<string, unknown> = {}) => ({
    categories: ["news"],
    disclosure: DISCLOSURE,
    disclosure_version: "v3",
    method: "checkbox",
    source: "signup_page",
    ip: "203.0.113.7",
    user_agent: "Mozilla/5.0 (signup)",
    ...extra,
  });

  it("subscribes, records the disclosure and its SHA-256, and stores the expiry in consents", async () => {
    const person = await makePerson(h, "consent-1");
    const { token } = await issueToken("consent-1");
    await request(h.app)
      .put(`/v1/preferences/${token}`)
      .send({ unsubscribed_categories: ["news", "marketing"] })
      .expect(200);
    const expiresAt = "2099-01-01T00:00:00.000Z";
    const res = await h
      .as()
      .post("/v1/recipients/consent-1/consent")
      .send(consentBody({ expires_at: expiresAt }))
      .expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^cns_/),
      source: "api",
      changes: { unsubscribed_categories: { added: [], removed: ["news"] } },
      provenance: {
        method: "checkbox",
        consent_source: "signup_page",
        ip: "203.0.113.7",
        user_agent: "Mozilla/5.0 (signup)",
        api_key: h.adminKeyId,
      },
      categories: ["news"],
      disclosure: DISCLOSURE,
      disclosure_sha256: createHash("sha256").update(DISCLOSURE).digest("hex"),
      disclosure_version: "v3",
      expires_at: expiresAt,
      created_at: expect.any(String),
    });
    expect(
      (await h.prisma.recipient.findUniqueOrThrow({ where: { id: person.id } })).unsubscribed_categories,
    ).toEqual(["marketing"]);
    const consent = await h.prisma.consent.findUniqueOrThrow({
      where: { recipient_id_category: { recipient_id: person.id, category: "news" } },
    });
    expect(consent).toMatchObject({ entry_id: res.body.id, expires_at: new Date(expiresAt) });
    expect((await history("consent-1"))[0]).toEqual(res.body);
  });

  it("records again when already subscribed; a record without expires_at clears the expiry", async () => {
    const person = await makePerson(h, "consent-2");
    await h
      .as()
      .post("/v1/recipients/consent-2/consent")
      .send(consentBody({ expires_at: "2099-01-01T00:00:00Z" }))
      .expect(201);
    const again = await h
      .as()
      .post("/v1/recipients/consent-2/consent")
      .send(consentBody({ disclosure_version: "v4" }))
      .expect(201);
    expect(again.body).toMatchObject({
      changes: {},
      disclosure_version: "v4",
      expires_at: null,
      categories: ["news"],
    });
    expect(await history("consent-2")).toHaveLength(2);
    const consent = await h.prisma.consent.findUniqueOrThrow({
      where: { recipient_id_category: { recipient_id: person.id, category: "news" } },
    });
    expect(consent).toMatchObject({ entry_id: again.body.id, expires_at: null });
  });

  it.each([
    ["no categories", { categories: [] }, ["body", "categories"]],
    ["an unknown category", { categories: ["nope"] }, ["body", "categories", 0]],
    ["a past expiry", { expires_at: "2001-01-01T00:00:00Z" }, ["body", "expires_at"]],
    ["an unknown field", { extra: 1 }, ["body", "extra"]],
  ])("422 for %s", async (_name, extra, loc) => {
    await makePerson(h, "consent-bad");
    const res = await h.as().post("/v1/recipients/consent-bad/consent").send(consentBody(extra)).expect(422);
    expect(res.body.errors.map((e: { loc: unknown }) => e.loc)).toContainEqual(loc);
  });
});

describe("agent keys", () => {
  beforeAll(() => makePerson(h, "agent-target"));
  it.each([
    [
      "post",
      "/v1/recipients/agent-target/preference-token",
      undefined,
      "agent keys may not change recipients",
    ],
    [
      "get",
      "/v1/recipients/agent-target/preferences/history",
      undefined,
      "agent keys may not read preferences or the consent ledger",
    ],
    [
      "post",
      "/v1/recipients/agent-target/consent",
      { categories: ["news"], disclosure: "d", method: "m", source: "s" },
      "agent keys may not record consent",
    ],
  ] as const)("403 on %s %s", async (method, path, body, detail) => {
    const res = await h.as(agentKey)[method](path).send(body).expect(403);
    expect(res.body.detail).toBe(detail);
  });
});
