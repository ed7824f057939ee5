import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { agentRows, softDeleteAgent } from "../../config-resources";
import { findApiKeyForAuth, insertApiKey, markApiKeyRevoked } from "..";

// API keys against the real schema: the revoke compare-and-set and what authentication reads.

const NOW = new Date("2024-01-15T12:00:00.000Z");

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("store_api_keys");
  await agentRows.insert(db.prisma, "helper", { name: "Helper" }, NOW);
});
afterAll(() => db.drop());

/** A key of the agent "helper" whose secret hashes to `hash`. */
const helperKey = (id: string, hash: string) =>
  insertApiKey(db.prisma, {
    id,
    name: "helper key",
    prefix: "svc_abcd",
    hash,
    scopes: ["events:write"],
    agent_key: "helper",
    expires_at: null,
    created_at: NOW,
  });

test("revoking a key wins once and the auth read sees it with its agent's state", async () => {
  await helperKey("key_1", "hash-1");
  expect(await markApiKeyRevoked(db.prisma, "key_1", NOW)).toBe(true);
  expect(await markApiKeyRevoked(db.prisma, "key_1", new Date(NOW.getTime() + 1000))).toBe(false);
  expect(await findApiKeyForAuth(db.prisma, "hash-1")).toEqual({
    id: "key_1",
    name: "helper key",
    scopes: ["events:write"],
    agent_key: "helper",
    expires_at: null,
    revoked_at: NOW,
    agent: { key: "helper", enabled: true, deleted_at: null },
  });
  expect(await findApiKeyForAuth(db.prisma, "unknown")).toBeNull();
});

test("the auth read carries a deleted agent's state", async () => {
  await helperKey("key_2", "hash-2");
  await softDeleteAgent(db.prisma, "helper", NOW);
  expect((await findApiKeyForAuth(db.prisma, "hash-2"))?.agent).toEqual({
    key: "helper",
    enabled: true,
    deleted_at: NOW,
  });
});
