import { accessDenial, describeOperationAccess, type OperationAccess } from "../operation-access";

describe("describeOperationAccess", () => {
  it.each([
    [
      { security: [{ bearerAuth: ["messages:write"] }] },
      { requiresKey: true, scopes: ["messages:write"], agentKeysRefused: null },
    ],
    [
      { security: [{ bearerAuth: ["messages:read"] }, { bearerAuth: ["messages:write"] }] },
      { requiresKey: true, scopes: ["messages:read", "messages:write"], agentKeysRefused: null },
    ],
    [{ security: [{ bearerAuth: [] }] }, { requiresKey: true, scopes: [], agentKeysRefused: null }],
    [{ security: [] }, { requiresKey: false, scopes: [], agentKeysRefused: null }],
    [{ security: [{ inboxToken: [] }] }, { requiresKey: false, scopes: [], agentKeysRefused: null }],
    [{}, { requiresKey: true, scopes: [], agentKeysRefused: null }], // the document's default
    [
      {
        security: [{ bearerAuth: ["messages:write"] }],
        "x-svc-agent-keys": "agent keys may not approve or reject",
      },
      {
        requiresKey: true,
        scopes: ["messages:write"],
        agentKeysRefused: "agent keys may not approve or reject",
      },
    ],
  ])("%j", (operation, expected) => {
    expect(describeOperationAccess(operation, [{ bearerAuth: [] }])).toEqual(expected);
  });
});

describe("accessDenial", () => {
  const write: OperationAccess = { requiresKey: true, scopes: ["messages:write"], agentKeysRefused: null };
  const decide: OperationAccess = { ...write, agentKeysRefused: "agent keys may not approve or reject" };
  const admin: OperationAccess = { requiresKey: true, scopes: ["admin"], agentKeysRefused: null };
  const anyKey: OperationAccess = { requiresKey: true, scopes: [], agentKeysRefused: null };
  it.each([
    [{ scopes: ["messages:write"], agentKey: null }, write, null],
    [{ scopes: ["admin"], agentKey: null }, write, null],
    [{ scopes: ["messages:read"], agentKey: null }, write, "this API key lacks the scope 'messages:write'"],
    [{ scopes: ["messages:write"], agentKey: "bot" }, write, null],
    [{ scopes: ["messages:write"], agentKey: "bot" }, decide, "agent keys may not approve or reject"],
    [{ scopes: ["messages:write"], agentKey: null }, decide, null],
    [{ scopes: ["events:write"], agentKey: "bot" }, admin, "agent-bound keys cannot use admin endpoints"],
    [{ scopes: ["events:write"], agentKey: "bot" }, anyKey, null],
  ] as const)("%j on %j → %j", (principal, access, denial) => {
    expect(accessDenial(principal, access)).toBe(denial);
  });
});
