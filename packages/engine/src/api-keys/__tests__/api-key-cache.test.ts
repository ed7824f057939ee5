import { sha256Hex } from "@svc/core";
import type { PrismaClient } from "@svc/store";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { agentsResource } from "../../agents/agent-crud";
import { createApiKeyCache, type ApiKeyCache } from "../api-key-cache";
import { authenticate } from "../authenticate";
import { createApiKey } from "../create-api-key";
import { revokeApiKey } from "../revoke-api-key";

// The key cache saves the Postgres read, never a decision: revoke and agent changes in this
// process clear it before they answer, expiry is checked against `now` on every request, and rows
// are re-read after the TTL (changes nobody announced).

let db: TestDatabase;
let reads: number;
let prisma: PrismaClient; // the test database's client, counting key reads
let clockMs: number;
let published: number;
let realNow: Date;
const now = () => realNow;

beforeAll(async () => {
  db = await createTestDatabase("api_key_cache");
  prisma = new Proxy(db.prisma, {
    get(target, prop, receiver) {
      if (prop !== "apiKey") return Reflect.get(target, prop, receiver) as unknown;
      const delegate = target.apiKey;
      return new Proxy(delegate, {
        get(d, p, r) {
          if (p !== "findUnique") return Reflect.get(d, p, r) as unknown;
          return (...args: Parameters<typeof delegate.findUnique>) => {
            reads++;
            return delegate.findUnique(...args);
          };
        },
      });
    },
  });
});
afterAll(() => db.drop());

beforeEach(() => {
  reads = 0;
  clockMs = 0;
  published = 0;
  realNow = new Date("2026-03-01T12:00:00.000Z");
});

function cache(ttlMs = 1000): ApiKeyCache {
  return createApiKeyCache({ prisma, ttlMs, clock: () => clockMs, publish: () => published++ });
}

async function newKey(scopes = ["events:write"], agent?: string) {
  return createApiKey({ prisma: db.prisma, now }, { name: "k", scopes, agent });
}

const bearer = (key: string) => `Bearer ${key}`;

it("reads a key once while fresh; concurrent misses share that read; after the TTL it reads again", async () => {
  const { key, id } = await newKey();
  const keys = cache(1000);
  const principals = await Promise.all(
    [1, 2, 3].map(() => authenticate({ prisma, now, apiKeyCache: keys }, bearer(key))),
  );
  expect(principals.map((p) => p.keyId)).toEqual([id, id, id]);
  expect(reads).toBe(1);
  clockMs = 999;
  await authenticate({ prisma, now, apiKeyCache: keys }, bearer(key));
  expect(reads).toBe(1);
  clockMs = 1000;
  await authenticate({ prisma, now, apiKeyCache: keys }, bearer(key));
  expect(reads).toBe(2);
});

it("revoking in this process refuses the key on the very next request and tells the other processes", async () => {
  const { key, id } = await newKey();
  const keys = cache(60_000);
  await authenticate({ prisma, now, apiKeyCache: keys }, bearer(key));
  await revokeApiKey({ prisma, now, apiKeyCache: keys }, id);
  await expect(authenticate({ prisma, now, apiKeyCache: keys }, bearer(key))).rejects.toMatchObject({
    status: 401,
    detail: "API key revoked",
  });
  expect(published).toBe(1);
});

it("expiry is checked against now on every request, cached or not", async () => {
  const expires = new Date(realNow.getTime() + 60_000);
  const { key } = await createApiKey(
    { prisma: db.prisma, now },
    { name: "e", scopes: ["events:write"], expires_at: expires },
  );
  const keys = cache(60_000);
  await authenticate({ prisma, now, apiKeyCache: keys }, bearer(key));
  realNow = expires;
  await expect(authenticate({ prisma, now, apiKeyCache: keys }, bearer(key))).rejects.toMatchObject({
    status: 401,
    detail: "API key expired",
  });
  expect(reads).toBe(1);
});

it("disabling or deleting the key's agent here refuses its keys on the next request", async () => {
  const agents = () => agentsResource({ prisma: db.prisma, now, apiKeyCache: keys });
  const keys = cache(60_000);
  await agentsResource({ prisma: db.prisma, now }).create("cached-bot", { name: "Bot" }, realNow);
  const { key } = await newKey(["events:write"], "cached-bot");
  expect((await authenticate({ prisma, now, apiKeyCache: keys }, bearer(key))).agentKey).toBe("cached-bot");
  await agents().update("cached-bot", { enabled: false } as never, new Date());
  await expect(authenticate({ prisma, now, apiKeyCache: keys }, bearer(key))).rejects.toMatchObject({
    status: 403,
    detail: "agent 'cached-bot' is disabled",
  });
  await agents().replace("cached-bot", { name: "Bot", enabled: true } as never, realNow);
  expect((await authenticate({ prisma, now, apiKeyCache: keys }, bearer(key))).agentKey).toBe("cached-bot");
  await agents().remove("cached-bot");
  await expect(authenticate({ prisma, now, apiKeyCache: keys }, bearer(key))).rejects.toMatchObject({
    status: 403,
    detail: "agent 'cached-bot' was deleted",
  });
  expect(published).toBe(3);
});

it("a read that started before an invalidation answers its request but is not remembered", async () => {
  const { key, id } = await newKey();
  const keys = cache(60_000);
  const inFlight = authenticate({ prisma, now, apiKeyCache: keys }, bearer(key));
  keys.clear(); // a notice arrives while the read is out
  expect((await inFlight).keyId).toBe(id);
  await authenticate({ prisma, now, apiKeyCache: keys }, bearer(key));
  expect(reads).toBe(2);
  expect(published).toBe(0); // a notice from elsewhere is not passed on
});

it("unknown keys are not remembered: a key created after a miss works at once", async () => {
  const keys = cache(60_000);
  const hash = sha256Hex("svc_not_yet");
  expect(await keys.lookup(hash)).toBeNull();
  expect(await keys.lookup(hash)).toBeNull();
  expect(reads).toBe(2);
});

it("more distinct keys than maxEntries start the cache over instead of growing", async () => {
  const made = await Promise.all([1, 2, 3].map(() => newKey()));
  const keys = createApiKeyCache({ prisma, ttlMs: 60_000, maxEntries: 2, clock: () => clockMs });
  for (const { key } of made) await authenticate({ prisma, now, apiKeyCache: keys }, bearer(key));
  expect(reads).toBe(3);
  await authenticate({ prisma, now, apiKeyCache: keys }, bearer(made[2]!.key)); // kept after the restart
  await authenticate({ prisma, now, apiKeyCache: keys }, bearer(made[0]!.key)); // dropped by it
  expect(reads).toBe(4);
});
