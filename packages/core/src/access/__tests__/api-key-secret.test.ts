import { API_KEY_PATTERN, apiKeyDisplayPrefix, generateApiKeySecret, sha256Hex } from "../api-key-secret";
import { hasScope, senderOf } from "../scopes";

describe("API key secrets", () => {
  it("look like svc_ plus 43 base62 characters and never repeat", () => {
    const keys = Array.from({ length: 200 }, generateApiKeySecret);
    for (const key of keys) expect(key).toMatch(API_KEY_PATTERN);
    expect(new Set(keys).size).toBe(200);
  });

  it("store as SHA-256 hex with an 8-character display prefix", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(apiKeyDisplayPrefix("svc_0123456789")).toBe("svc_0123");
  });
});

describe("scopes", () => {
  it.each([
    [["admin"], "recipients:write", true],
    [["messages:read"], "messages:read", true],
    [["messages:read"], "messages:write", false],
    [[], "events:write", false],
  ] as const)("%j has %s: %s", (scopes, scope, expected) => {
    expect(hasScope({ scopes }, scope)).toBe(expected);
  });

  it("scopes idempotency per sender", () => {
    expect(senderOf({ agentKey: null })).toBe("backend");
    expect(senderOf({ agentKey: "helper" })).toBe("helper");
  });
});
