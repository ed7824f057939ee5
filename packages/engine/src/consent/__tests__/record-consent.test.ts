import { createHash } from "node:crypto";
import { AppError, type Principal } from "@svc/core";
import { createTestDatabase, webhookEventsIn, type TestDatabase } from "@svc/testkit";
import { listPreferenceHistory } from "../preference-history";
import { recordConsent, type ConsentInput } from "../record-consent";

// Opt-in records and the consent ledger (docs/preferences.md "Opt-in records", "Consent ledger",
// "Agent keys"): one ledger entry per opt-in with the disclosure's SHA-256 and the provenance,
// even when nothing changed; `consents` rows carrying the expiry; the history newest first.

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("engine_consent");
  await db.prisma.category.createMany({ data: [{ key: "newsletter" }, { key: "offers" }] });
});
afterAll(() => db.drop());

const BACKEND: Principal = { keyId: "key_backend1", keyName: "backend", scopes: ["admin"], agentKey: null };
const AGENT: Principal = {
  keyId: "key_agent1",
  keyName: "bot",
  scopes: ["recipients:read", "recipients:write"],
  agentKey: "helper-bot",
};
const NOW = new Date("2025-05-04T09:12:00.000Z");
const later = (ms: number) => new Date(NOW.getTime() + ms);
const deps = (now: Date = NOW) => ({ prisma: db.prisma, now: () => now });

let people = 0;
async function person(unsubscribed: string[] = []) {
  people += 1;
  return db.prisma.recipient.create({
    data: {
      id: `rcp_consent${people}`,
      external_id: `consent-${people}`,
      unsubscribed_categories: unsubscribed,
    },
  });
}

const body = (extra: Partial<ConsentInput> = {}): ConsentInput => ({
  categories: ["newsletter"],
  disclosure: "Yes, send me the newsletter.",
  method: "checkbox",
  source: "signup_page",
  ...extra,
});

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error: unknown = await promise.then(
    () => new Error("expected a refusal"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const sha256 = (text: string) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");

it("resubscribes, writes one entry with the change, the disclosure's SHA-256 and the provenance, and the consents rows", async () => {
  const p = await person(["newsletter", "offers", "marketing"]);
  const disclosure = "Ja, schickt mir Angebote – jederzeit kündbar.";
  const expiresAt = "2026-05-04T09:12:00.000Z";
  const entry = await recordConsent(deps(), BACKEND, p.external_id, {
    categories: ["offers", "newsletter", "offers"],
    disclosure,
    disclosure_version: "v3",
    method: "double_opt_in",
    source: "newsletter_form",
    ip: "203.0.113.9",
    user_agent: "Mozilla/5.0",
    expires_at: expiresAt,
  });
  expect(entry).toEqual({
    id: expect.stringMatching(/^cns_/),
    source: "api",
    changes: { unsubscribed_categories: { added: [], removed: ["newsletter", "offers"] } },
    provenance: {
      method: "double_opt_in",
      consent_source: "newsletter_form",
      ip: "203.0.113.9",
      user_agent: "Mozilla/5.0",
      api_key: "key_backend1",
    },
    categories: ["offers", "newsletter"],
    disclosure,
    disclosure_sha256: sha256(disclosure),
    disclosure_version: "v3",
    expires_at: expiresAt,
    created_at: NOW.toISOString(),
  });

  const stored = await db.prisma.recipient.findUniqueOrThrow({ where: { id: p.id } });
  expect(stored.unsubscribed_categories).toEqual(["marketing"]);
  expect(await db.prisma.consentEntry.count({ where: { recipient_id: p.id } })).toBe(1);
  const consents = await db.prisma.consent.findMany({
    where: { recipient_id: p.id },
    orderBy: { category: "asc" },
  });
  expect(consents).toEqual(
    ["newsletter", "offers"].map((category) => ({
      recipient_id: p.id,
      category,
      entry_id: entry.id,
      expires_at: new Date(expiresAt),
      recorded_at: NOW,
    })),
  );
  // Backends hear of the change once (docs/webhooks.md): the entry's data, frozen.
  expect(await webhookEventsIn(db.prisma, p.id)).toEqual([
    {
      type: "recipient.preferences_changed",
      occurred_at: NOW.toISOString(),
      subject: { kind: "recipient", id: p.id },
      snapshot: {
        external_id: p.external_id,
        source: "api",
        changes: entry.changes,
        created_at: NOW.toISOString(),
      },
    },
  ]);
});

it("an opt-in of someone already subscribed is still evidence: an entry with changes {}, and its webhook event", async () => {
  const p = await person();
  const entry = await recordConsent(deps(), BACKEND, p.external_id, body());
  expect(entry).toMatchObject({
    changes: {},
    provenance: {
      method: "checkbox",
      consent_source: "signup_page",
      ip: null,
      user_agent: null,
      api_key: "key_backend1",
    },
    categories: ["newsletter"],
    disclosure_version: null,
    expires_at: null,
  });
  expect(await db.prisma.consentEntry.count({ where: { recipient_id: p.id } })).toBe(1);
  expect(await db.prisma.consent.findMany({ where: { recipient_id: p.id } })).toEqual([
    { recipient_id: p.id, category: "newsletter", entry_id: entry.id, expires_at: null, recorded_at: NOW },
  ]);
  const events = await webhookEventsIn(db.prisma, p.id);
  expect(events.map((e) => [e.type, e.snapshot?.changes])).toEqual([["recipient.preferences_changed", {}]]);
});

it("a later record replaces the consents row; one without expires_at clears the expiry; both entries stay in the ledger", async () => {
  const p = await person();
  const first = await recordConsent(
    deps(),
    BACKEND,
    p.external_id,
    body({ expires_at: "2025-06-01T00:00:00Z" }),
  );
  const second = await recordConsent(
    deps(later(60_000)),
    BACKEND,
    p.external_id,
    body({ disclosure_version: "v2" }),
  );
  expect(second.id).not.toBe(first.id);
  expect(await db.prisma.consent.findMany({ where: { recipient_id: p.id } })).toEqual([
    {
      recipient_id: p.id,
      category: "newsletter",
      entry_id: second.id,
      expires_at: null,
      recorded_at: later(60_000),
    },
  ]);
  expect(await db.prisma.consentEntry.count({ where: { recipient_id: p.id } })).toBe(2);
});

it("expires_at must lie after now (422 at the field; 1 ms later is fine); unknown categories are 422 at their index", async () => {
  const p = await person(["newsletter"]);
  const error = await refusal(
    recordConsent(deps(), BACKEND, p.external_id, {
      ...body({ expires_at: NOW.toISOString() }),
      categories: ["newsletter", "nope", "offers", "nada"],
    }),
  );
  expect({ code: error.code, status: error.status }).toEqual({ code: "validation", status: 422 });
  expect(error.errors?.map((e) => ({ loc: e.loc, type: e.type }))).toEqual([
    { loc: ["body", "categories", 1], type: "value_error" },
    { loc: ["body", "categories", 3], type: "value_error" },
    { loc: ["body", "expires_at"], type: "value_error" },
  ]);
  // Nothing was written: still unsubscribed, no entry, no consent, no webhook event.
  expect(
    (await db.prisma.recipient.findUniqueOrThrow({ where: { id: p.id } })).unsubscribed_categories,
  ).toEqual(["newsletter"]);
  expect(await db.prisma.consentEntry.count({ where: { recipient_id: p.id } })).toBe(0);
  expect(await db.prisma.consent.count({ where: { recipient_id: p.id } })).toBe(0);
  expect(await webhookEventsIn(db.prisma, p.id)).toEqual([]);

  const ok = await recordConsent(
    deps(),
    BACKEND,
    p.external_id,
    body({ expires_at: later(1).toISOString() }),
  );
  expect(ok.expires_at).toBe(later(1).toISOString());
});

it("404 for an unknown person; 403 for agent keys, writing and reading alike, and nothing is written", async () => {
  const missing = await refusal(recordConsent(deps(), BACKEND, "nobody", body()));
  expect({ code: missing.code, status: missing.status }).toEqual({ code: "not_found", status: 404 });
  const missingHistory = await refusal(listPreferenceHistory(deps(), BACKEND, "nobody", {}));
  expect({ code: missingHistory.code, status: missingHistory.status }).toEqual({
    code: "not_found",
    status: 404,
  });

  const p = await person(["newsletter"]);
  const forbidden = await refusal(recordConsent(deps(), AGENT, p.external_id, body()));
  expect({ code: forbidden.code, status: forbidden.status }).toEqual({ code: "forbidden", status: 403 });
  expect(await db.prisma.consentEntry.count({ where: { recipient_id: p.id } })).toBe(0);
  expect(
    (await db.prisma.recipient.findUniqueOrThrow({ where: { id: p.id } })).unsubscribed_categories,
  ).toEqual(["newsletter"]);
  const reading = await refusal(listPreferenceHistory(deps(), AGENT, p.external_id, {}));
  expect({ code: reading.code, status: reading.status }).toEqual({ code: "forbidden", status: 403 });
});

it("history pages one person's entries newest first (equal times by id), with a cursor that survives inserts", async () => {
  const p = await person();
  const other = await person();
  await recordConsent(deps(), BACKEND, other.external_id, body());
  const ids: string[] = [];
  // Two entries share a time: the id (a ULID) orders them.
  for (const now of [NOW, later(1000), later(1000), later(2000)])
    ids.push((await recordConsent(deps(now), BACKEND, p.external_id, body())).id);
  const newestFirst = [ids[3], ...[ids[1]!, ids[2]!].sort().reverse(), ids[0]];

  const first = await listPreferenceHistory(deps(), BACKEND, p.external_id, { limit: 3 });
  expect(first.items.map((e) => e.id)).toEqual(newestFirst.slice(0, 3));
  expect(first.items[0]).toMatchObject({ created_at: later(2000).toISOString(), categories: ["newsletter"] });
  await recordConsent(deps(later(5000)), BACKEND, p.external_id, body());
  const second = await listPreferenceHistory(deps(), BACKEND, p.external_id, {
    limit: 3,
    cursor: first.next_cursor!,
  });
  expect(second).toEqual({ items: [expect.objectContaining({ id: newestFirst[3] })], next_cursor: null });

  const foreign = await refusal(
    listPreferenceHistory(deps(), BACKEND, p.external_id, { cursor: "eyJ4IjoxfQ" }),
  );
  expect({ code: foreign.code, status: foreign.status }).toEqual({ code: "validation", status: 422 });
});
