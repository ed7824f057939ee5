import { createHash, createHmac } from "node:crypto";
import { AppError, newId } from "@svc/core";
import { $transaction } from "@svc/store";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { requireSecretKey, rotatePreferenceToken } from "../link-tokens";
import { resolveLinkToken } from "../resolve-link-token";

// Link tokens in the database (docs/preferences.md "Tokens", "Self-service"): a token is
// base64url(HMAC-SHA256(SVC_SECRET_KEY, "<purpose>:<ids>:<nonce>")), only its SHA-256 is stored,
// a new nonce kills the old token at once, and `/preferences/{token}` takes a preference token or
// a message's unsubscribe token (never a tracking token). The expected tokens here are computed
// with node:crypto from the documented formula, not with svc's own derivation.

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("engine_links");
});
afterAll(() => db.drop());

const SECRET = "links-test-secret-key-".padEnd(48, "z");
const NOW = new Date("2025-01-20T10:00:00.000Z");
const later = (ms: number) => new Date(NOW.getTime() + ms);
const hmacToken = (purpose: string, id: string, nonce: string) =>
  createHmac("sha256", SECRET).update(`${purpose}:${id}:${nonce}`).digest("base64url");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function person() {
  return db.prisma.recipient.create({
    data: { id: newId("recipient"), external_id: `links-${newId("recipient")}` },
  });
}

/** A message whose unsubscribe and tracking hashes are stored as composition writes them. */
async function messageTo(recipient: { id: string; external_id: string }, category: string) {
  const id = newId("message");
  const nonce = `nonce-${id}`;
  const unsubscribe = hmacToken("unsubscribe", id, nonce);
  const tracking = hmacToken("tracking", id, nonce);
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
      link_nonce: nonce,
      unsubscribe_token_hash: sha256(unsubscribe),
      tracking_token_hash: sha256(tracking),
    },
  });
  return { id, unsubscribe, tracking };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error: unknown = await promise.then(
    () => new Error("expected a refusal"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

async function expectUnknown(token: string) {
  const error = await refusal(resolveLinkToken(db.prisma, token));
  expect({ code: error.code, status: error.status }).toEqual({ code: "not_found", status: 404 });
}

it("requireSecretKey: the configured key, or 503 when SVC_SECRET_KEY is not set", () => {
  expect(requireSecretKey({ secrets: { secretKey: SECRET } })).toBe(SECRET);
  for (const secretKey of [null, ""]) {
    let thrown: unknown;
    try {
      requireSecretKey({ secrets: { secretKey } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect({ code: (thrown as AppError).code, status: (thrown as AppError).status }).toEqual({
      code: "unavailable",
      status: 503,
    });
  }
});

it("a preference token is the documented HMAC over the stored nonce; only its SHA-256 is stored; it resolves to the person", async () => {
  const p = await person();
  const token = await rotatePreferenceToken(db.prisma, SECRET, p.id, NOW);
  expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

  const row = await db.prisma.preferenceToken.findUniqueOrThrow({ where: { recipient_id: p.id } });
  expect(token).toBe(hmacToken("preferences", p.id, row.nonce));
  expect(row).toEqual({ recipient_id: p.id, nonce: row.nonce, token_hash: sha256(token), created_at: NOW });
  expect(Object.values(row)).not.toContain(token);
  expect(await resolveLinkToken(db.prisma, token)).toEqual({ kind: "preferences", recipientId: p.id });
});

it("rotating replaces the nonce: the old token is 404 at once, the new one works, one row per person", async () => {
  const p = await person();
  const old = await rotatePreferenceToken(db.prisma, SECRET, p.id, NOW);
  const oldNonce = (await db.prisma.preferenceToken.findUniqueOrThrow({ where: { recipient_id: p.id } }))
    .nonce;
  const fresh = await rotatePreferenceToken(db.prisma, SECRET, p.id, later(1000));

  expect(fresh).not.toBe(old);
  const rows = await db.prisma.preferenceToken.findMany({ where: { recipient_id: p.id } });
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ token_hash: sha256(fresh), created_at: later(1000) });
  expect(rows[0]!.nonce).not.toBe(oldNonce);
  await expectUnknown(old);
  expect(await resolveLinkToken(db.prisma, fresh)).toEqual({ kind: "preferences", recipientId: p.id });
});

it("a rotation inside a transaction that rolls back leaves the old token live", async () => {
  const p = await person();
  const live = await rotatePreferenceToken(db.prisma, SECRET, p.id, NOW);
  let rotated = "";
  await expect(
    $transaction(db.prisma, async (tx) => {
      rotated = await rotatePreferenceToken(tx, SECRET, p.id, later(1000));
      throw new Error("roll back");
    }),
  ).rejects.toThrow("roll back");
  expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(await resolveLinkToken(db.prisma, live)).toEqual({ kind: "preferences", recipientId: p.id });
  await expectUnknown(rotated);
});

it("a message's unsubscribe token resolves to the person, the message and its category; its tracking token does not", async () => {
  const p = await person();
  const m = await messageTo(p, "marketing");
  expect(await resolveLinkToken(db.prisma, m.unsubscribe)).toEqual({
    kind: "unsubscribe",
    recipientId: p.id,
    messageId: m.id,
    category: "marketing",
  });
  await expectUnknown(m.tracking);
});

it("404 for unknown, malformed and other keys' tokens, and for the tokens of an erased person", async () => {
  const p = await person();
  const token = await rotatePreferenceToken(db.prisma, SECRET, p.id, NOW);
  const m = await messageTo(p, "transactional");
  const nonce = (await db.prisma.preferenceToken.findUniqueOrThrow({ where: { recipient_id: p.id } })).nonce;
  const otherKey = createHmac("sha256", "another-key")
    .update(`preferences:${p.id}:${nonce}`)
    .digest("base64url");

  for (const bad of [
    otherKey,
    hmacToken("preferences", p.id, "a-nonce-never-stored"),
    token.slice(0, 42),
    `${token}x`,
    `${token.slice(0, 42)}=`,
    `${token.slice(0, 42)}+`,
    sha256(token), // the stored hash is not a token
    "",
  ])
    await expectUnknown(bad);

  await db.prisma.recipient.delete({ where: { id: p.id } });
  await expectUnknown(token);
  await expectUnknown(m.unsubscribe);
});
