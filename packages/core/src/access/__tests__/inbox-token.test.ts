import { createHmac } from "node:crypto";
import { checkInboxToken, mintInboxToken, readInboxToken } from "../inbox-token";

const SECRET = "s".repeat(32);
const NOW = new Date("2026-03-01T12:00:00Z");
const EXP = Math.floor(NOW.getTime() / 1000) + 3600;
const claims = { recipientId: "rcp_01JABCDEFGHJKMNPQRSTVWXYZ0", expiresAt: EXP };

describe("inbox tokens", () => {
  it("is <recipient id>.<expiry>.<HMAC over the purpose, ids and the person's nonce>", () => {
    const token = mintInboxToken(SECRET, claims, "nonce-1");
    const mac = createHmac("sha256", SECRET)
      .update(`inbox:${claims.recipientId}:${EXP}:nonce-1`)
      .digest("base64url");
    expect(token).toBe(`${claims.recipientId}.${EXP}.${mac}`);
    expect(readInboxToken(token)).toEqual({ ...claims, mac });
  });

  it("is valid until it expires, then expired", () => {
    const token = readInboxToken(mintInboxToken(SECRET, claims, "n"))!;
    expect(checkInboxToken(SECRET, token, "n", NOW)).toBe("valid");
    expect(checkInboxToken(SECRET, token, "n", new Date(EXP * 1000 - 1))).toBe("valid");
    expect(checkInboxToken(SECRET, token, "n", new Date(EXP * 1000))).toBe("expired");
  });

  it.each([
    ["another nonce (the preference token was rotated)", "n2", SECRET],
    ["no nonce (the person was erased)", null, SECRET],
    ["another secret key", "n", "t".repeat(32)],
  ])("is invalid with %s", (_why, nonce, secret) => {
    const token = readInboxToken(mintInboxToken(SECRET, claims, "n"))!;
    expect(checkInboxToken(secret, token, nonce, NOW)).toBe("invalid");
  });

  it("refuses a token whose expiry or person was changed, and never calls a forged one expired", () => {
    const token = mintInboxToken(SECRET, claims, "n");
    const [id, exp, mac] = token.split(".") as [string, string, string];
    const later = readInboxToken(`${id}.${Number(exp) + 86400}.${mac}`)!;
    const other = readInboxToken(`rcp_other.${exp}.${mac}`)!;
    const past = readInboxToken(`${id}.1.${mac}`)!;
    expect(checkInboxToken(SECRET, later, "n", NOW)).toBe("invalid");
    expect(checkInboxToken(SECRET, other, "n", NOW)).toBe("invalid");
    expect(checkInboxToken(SECRET, past, "n", NOW)).toBe("invalid");
  });

  it.each([
    "",
    "svc_abc",
    "a.b.c",
    `rcp_1.${EXP}.short`,
    `rcp 1.${EXP}.${"a".repeat(43)}`,
    `rcp_1.-1.${"a".repeat(43)}`,
  ])("does not read %j", (text) => {
    expect(readInboxToken(text)).toBeNull();
  });
});
