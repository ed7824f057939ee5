import { createHash, createHmac } from "node:crypto";
import {
  absoluteLinkUrl,
  deriveLinkToken,
  isLinkTokenShaped,
  redactLinkTokens,
  linkTokenHash,
  messageLinkTokens,
  newLinkNonce,
  preferenceToken,
  preferencesPath,
  unsubscribePath,
} from "../link-tokens";

const SECRET = "s".repeat(32);

describe("deriveLinkToken", () => {
  it("is base64url(HMAC-SHA256(secret, purpose:ids:nonce)), 43 characters", () => {
    const expected = createHmac("sha256", SECRET).update("preferences:rcp_1:n1").digest("base64url");
    const token = deriveLinkToken(SECRET, "preferences", ["rcp_1"], "n1");
    expect(token).toBe(expected);
    expect(token).toHaveLength(43);
    expect(isLinkTokenShaped(token)).toBe(true);
  });

  it.each([
    ["another purpose", () => deriveLinkToken(SECRET, "unsubscribe", ["rcp_1"], "n1")],
    ["another id", () => deriveLinkToken(SECRET, "preferences", ["rcp_2"], "n1")],
    ["another nonce", () => deriveLinkToken(SECRET, "preferences", ["rcp_1"], "n2")],
    ["another secret", () => deriveLinkToken("t".repeat(32), "preferences", ["rcp_1"], "n1")],
  ])("differs with %s", (_name, other) => {
    expect(other()).not.toBe(deriveLinkToken(SECRET, "preferences", ["rcp_1"], "n1"));
  });

  it("refuses an empty secret", () => {
    expect(() => deriveLinkToken("", "tracking", ["x"], "n")).toThrow("link tokens need a secret key");
  });
});

it("stores the SHA-256 hex of a token", () => {
  expect(linkTokenHash("abc")).toBe(createHash("sha256").update("abc").digest("hex"));
});

it("makes 256-bit random nonces", () => {
  const a = newLinkNonce();
  expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(newLinkNonce()).not.toBe(a);
});

it("derives a message's unsubscribe and tracking tokens from its id and nonce", () => {
  const tokens = messageLinkTokens(SECRET, { id: "msg_1", link_nonce: "nn" });
  expect(tokens.unsubscribe).toBe(deriveLinkToken(SECRET, "unsubscribe", ["msg_1"], "nn"));
  expect(tokens.tracking).toBe(deriveLinkToken(SECRET, "tracking", ["msg_1"], "nn"));
  expect(tokens.unsubscribeHash).toBe(linkTokenHash(tokens.unsubscribe));
  expect(tokens.trackingHash).toBe(linkTokenHash(tokens.tracking));
  expect(preferenceToken(SECRET, "rcp_1", "n1")).toBe(
    deriveLinkToken(SECRET, "preferences", ["rcp_1"], "n1"),
  );
});

it.each([
  ["https://svc.example.com", "https://svc.example.com/preferences/T"],
  ["https://svc.example.com/", "https://svc.example.com/preferences/T"],
  ["https://example.com/notify", "https://example.com/notify/preferences/T"],
  [null, null],
  [undefined, null],
])("absolute link for public_url %p", (publicUrl, expected) => {
  expect(absoluteLinkUrl(publicUrl, preferencesPath("T"))).toBe(expected);
});

it("builds the hosted paths", () => {
  expect(preferencesPath("T")).toBe("/preferences/T");
  expect(unsubscribePath("T")).toBe("/preferences/T/unsubscribe");
});

describe("redactLinkTokens", () => {
  const token = deriveLinkToken("secret", "preferences", ["rcp_1"], "nonce");
  it.each([
    [`https://svc.example/preferences/${token}`, "https://svc.example/preferences/[token]"],
    [
      `https://svc.example/preferences/${token}/unsubscribe`,
      "https://svc.example/preferences/[token]/unsubscribe",
    ],
    [`https://svc.example/review/${token}?x=1`, "https://svc.example/review/[token]?x=1"],
    [`https://t.example/?t=${token}`, "https://t.example/?t=[token]"],
    [`two /a/${token} /b/${token}`, "two /a/[token] /b/[token]"],
  ])("hides the token in %s", (text, expected) => {
    expect(redactLinkTokens(text)).toBe(expected);
  });

  it.each([
    ["a word of 43 letters standing alone", "a".repeat(43)],
    ["a longer path segment", `/x/${"a".repeat(44)}`],
    ["a shorter one", `/x/${"a".repeat(42)}`],
  ])("leaves %s alone", (_what, text) => {
    expect(redactLinkTokens(text)).toBe(text);
  });
});
