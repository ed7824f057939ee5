import { createHmac } from "node:crypto";
import { signPayload, verifySignature } from "../webhook-signature";

const SECRET = "whsec_test_secret";
const BODY = '{"id":"msg_1"}';
const T = 1740830400;
const now = new Date(T * 1000);

describe("signPayload", () => {
  it("signs '<t>.<raw body>' with HMAC-SHA256 in hex", () => {
    const expected = createHmac("sha256", SECRET).update(`${T}.${BODY}`).digest("hex");
    expect(signPayload(SECRET, BODY, T)).toBe(`t=${T},v1=${expected}`);
  });
});

describe("verifySignature", () => {
  const header = signPayload(SECRET, BODY, T);
  it.each([
    ["the signed body", SECRET, BODY, header, now, true],
    ["a Buffer of the same body", SECRET, Buffer.from(BODY), header, now, true],
    ["300 s later", SECRET, BODY, header, new Date((T + 300) * 1000), true],
    ["301 s later", SECRET, BODY, header, new Date((T + 301) * 1000), false],
    ["301 s earlier", SECRET, BODY, header, new Date((T - 301) * 1000), false],
    ["another body", SECRET, '{"id":"msg_2"}', header, now, false],
    ["another secret", "other", BODY, header, now, false],
    ["no header", SECRET, BODY, undefined, now, false],
    ["no timestamp", SECRET, BODY, header.replace(/^t=\d+,/, ""), now, false],
    [
      "a rotated secret listed second",
      SECRET,
      BODY,
      `t=${T},v1=${"0".repeat(64)},v1=${header.split("v1=")[1]}`,
      now,
      true,
    ],
    ["a short v1", SECRET, BODY, `t=${T},v1=abc`, now, false],
  ])("%s -> %s", (_label, secret, body, given, at, expected) => {
    expect(verifySignature(secret, body, given, { now: at })).toBe(expected);
  });

  it("honours a custom tolerance", () => {
    expect(
      verifySignature(SECRET, BODY, header, { now: new Date((T + 20) * 1000), toleranceSeconds: 10 }),
    ).toBe(false);
  });
});
