import { addressProblem, isEmailMailbox, type AddressKind } from "../address-rules";

const subscription = (endpoint: string, keys: unknown = { p256dh: "BPk", auth: "xyz" }) =>
  JSON.stringify({ endpoint, keys });

describe("addressProblem", () => {
  it.each<[AddressKind, string]>([
    ["email", "me@example.com"],
    ["email", "user+tag@sub.example.co.uk"],
    ["email", '"a,b"@example.com'], // one mailbox with a quoted local part
    ["email", "ünï@exämple.de"],
    ["phone", "+15551234567"],
    ["phone", "+491701234567"],
    ["phone", "+1 (555) 123-4567"], // separators people type: read as E.164 (docs/texting.md "Numbers")
    ["phone", "0049 170 1234567"],
    ["webpush", subscription("https://push.example/sub/1")],
    ["other", "C0123ABCD"],
    ["other", "device-token:abc_123"],
  ])("%s %j is accepted", (kind, value) => {
    expect(addressProblem(kind, value)).toBeNull();
  });

  it.each<[AddressKind, string, RegExp]>([
    // One value, several mailboxes: the list and its RCPT TO injection.
    ["email", "me@example.com, victim@example.org", /not exactly one e-mail address/],
    ["email", "me@example.com; victim@example.org", /not exactly one e-mail address/],
    ["email", "c@example.com>\r\nRCPT TO:<evil2@example.com", /control character/],
    ["email", "Me <me@example.com>", /not exactly one e-mail address/],
    ["email", "<me@example.com>", /not exactly one e-mail address/],
    ["email", "me@example.com\n", /control character/],
    ["email", "me@localhost", /not exactly one e-mail address/],
    ["email", "me@[127.0.0.1]", /not exactly one e-mail address/],
    ["email", "me", /not exactly one e-mail address/],
    ["email", `${"a".repeat(65)}@example.com`, /not exactly one e-mail address/],
    ["phone", "5551234567", /E\.164/],
    ["phone", "+1-555-CALL-NOW", /E\.164/],
    ["phone", "+15551234567, +15557654321", /E\.164/],
    ["phone", "+0155512345", /E\.164/],
    ["phone", "+1555123456789012", /E\.164/],
    ["phone", "+15551234567\r\n", /control character/],
    ["webpush", "not json", /push subscription/],
    ["webpush", "[]", /push subscription/],
    ["webpush", subscription("http://push.example/x"), /push subscription/],
    ["webpush", subscription("ftp://push.example/x"), /push subscription/],
    ["webpush", subscription("https://push.example/x", null), /push subscription/],
    ["webpush", subscription("https://push.example/x", { p256dh: 1, auth: "x" }), /push subscription/],
    ["other", "tab\there", /control character/],
    ["other", "nul\u0000", /control character/],
    ["other", "del\u007f", /control character/],
    ["other", "c1\u0085", /control character/],
    ["other", "half \ud800 pair", /unpaired UTF-16 surrogate/],
    ["other", "   ", /is empty/],
  ])("%s %j is refused", (kind, value, problem) => {
    expect(addressProblem(kind, value)).toMatch(problem);
  });

  it("accepts http:// push endpoints only when the channel allows them", () => {
    const value = subscription("http://127.0.0.1:9000/push");
    expect(addressProblem("webpush", value)).not.toBeNull();
    expect(addressProblem("webpush", value, { allowHttpPushEndpoints: true })).toBeNull();
  });
});

describe("isEmailMailbox", () => {
  it("is true for one mailbox only", () => {
    expect(isEmailMailbox("me@example.com")).toBe(true);
    expect(isEmailMailbox("me@example.com,you@example.com")).toBe(false);
    expect(isEmailMailbox('"x\r\n"@example.com')).toBe(false);
  });
});
