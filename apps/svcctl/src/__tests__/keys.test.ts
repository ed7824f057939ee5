import { API_KEY_PATTERN, sha256Hex } from "@svc/core";
import { authenticate } from "@svc/engine";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { svcctl } from "./harness";

// `svcctl keys …` in-process against a real, migrated database of its own.

const NOW = new Date("2026-06-01T10:00:00.000Z");
const now = () => NOW;
let db: TestDatabase;
let env: Record<string, string>;

beforeAll(async () => {
  db = await createTestDatabase("svcctl_keys");
  env = { DATABASE_URL: db.databaseUrl };
  await db.prisma.agent.create({ data: { key: "helper", name: "Helper" } });
});
afterAll(() => db.drop());

const rowOf = (secret: string) => db.prisma.apiKey.findUnique({ where: { hash: sha256Hex(secret) } });

describe("svcctl keys create", () => {
  it("bootstraps the first admin key: the secret alone on stdout, a summary on stderr", async () => {
    expect(await db.prisma.apiKey.count()).toBe(0);
    const run = await svcctl(["keys", "create", "bootstrap", "-s", "admin"], env, { now });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^svc_[0-9A-Za-z]{43}\n$/);
    const secret = run.stdout.trim();
    const row = await rowOf(secret);
    expect(row).toMatchObject({
      name: "bootstrap",
      prefix: secret.slice(0, 8),
      scopes: ["admin"],
      agent_key: null,
      expires_at: null,
      revoked_at: null,
      created_at: NOW,
    });
    expect(run.stderr).toBe(
      `created ${row!.id} 'bootstrap' (prefix ${secret.slice(0, 8)}, scopes admin, no expiry); store the key now, it is not shown again\n`,
    );
    expect(await authenticate({ prisma: db.prisma, now }, `Bearer ${secret}`)).toEqual({
      keyId: row!.id,
      keyName: "bootstrap",
      scopes: ["admin"],
      agentKey: null,
    });
  });

  it("--json prints the whole key once, secret included; -s repeats and comma-separates; --expires takes a period", async () => {
    const run = await svcctl(
      [
        "keys",
        "create",
        "ingest bot",
        "-s",
        "events:write,messages:read",
        "-s",
        "messages:read",
        "--expires",
        "P30D",
        "--json",
      ],
      env,
      { now },
    );
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const created = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(created.key).toMatch(API_KEY_PATTERN);
    const row = await rowOf(created.key as string);
    expect(created).toEqual({
      id: row!.id,
      name: "ingest bot",
      prefix: (created.key as string).slice(0, 8),
      scopes: ["events:write", "messages:read"],
      agent: null,
      expires_at: "2026-07-01T10:00:00.000Z",
      revoked_at: null,
      last_used_at: null,
      created_at: "2026-06-01T10:00:00.000Z",
      key: created.key,
    });
  });

  it("binds a key to an agent", async () => {
    const run = await svcctl(
      ["keys", "create", "helper key", "-s", "events:write", "--agent", "helper"],
      env,
      { now },
    );
    expect(run.code).toBe(0);
    const row = await rowOf(run.stdout.trim());
    expect(row).toMatchObject({ agent_key: "helper", scopes: ["events:write"] });
    expect(run.stderr).toContain("(prefix ");
    expect(run.stderr).toContain(", scopes events:write, agent helper, no expiry)");
  });

  it.each([
    [["-s", "admin", "--agent", "helper"], "error: an agent-bound key cannot hold the admin scope\n"],
    [["-s", "events:write", "--agent", "ghost"], "error: agent: no agent 'ghost'\n"],
    [
      ["-s", "events:write", "--expires", "2026-06-01T09:00:00Z"],
      "error: option '--expires <when>' argument '2026-06-01T09:00:00Z' is invalid. the time must be in the future.\n",
    ],
  ])("refuses %j with exit 2 and creates nothing", async (args, stderr) => {
    const before = await db.prisma.apiKey.count();
    const run = await svcctl(["keys", "create", "refused", ...args], env, { now });
    expect(run).toEqual({ code: 2, stdout: "", stderr });
    expect(await db.prisma.apiKey.count()).toBe(before);
  });
});

describe("svcctl keys list and revoke", () => {
  let ids: string[];
  let secrets: string[];

  beforeAll(async () => {
    await db.prisma.apiKey.deleteMany();
    secrets = [];
    for (const [name, minute] of [
      ["first", "01"],
      ["second", "02"],
      ["third", "03"],
    ] as const) {
      const at = new Date(`2026-06-01T10:${minute}:00.000Z`);
      const run = await svcctl(["keys", "create", name, "-s", "messages:read"], env, { now: () => at });
      secrets.push(run.stdout.trim());
    }
    ids = (await db.prisma.apiKey.findMany({ orderBy: { created_at: "desc" } })).map((row) => row.id);
  });

  it("--json pages newest first with a cursor", async () => {
    const first = await svcctl(["keys", "list", "--json", "--limit", "2"], env, { now });
    expect(first.code).toBe(0);
    const page1 = JSON.parse(first.stdout) as {
      items: { id: string; name: string }[];
      next_cursor: string | null;
    };
    expect(page1.items.map((key) => key.name)).toEqual(["third", "second"]);
    expect(page1.next_cursor).toEqual(expect.any(String));
    const second = await svcctl(["keys", "list", "--json", "--cursor", page1.next_cursor!], env, { now });
    const page2 = JSON.parse(second.stdout) as typeof page1;
    expect({ names: page2.items.map((key) => key.name), next: page2.next_cursor }).toEqual({
      names: ["first"],
      next: null,
    });
  });

  it("prints a table without secrets, and where the next page starts", async () => {
    await db.prisma.apiKey.update({
      where: { id: ids[1] },
      data: { expires_at: new Date("2026-06-01T09:00:00Z") },
    });
    const run = await svcctl(["keys", "list", "--limit", "2"], env, { now });
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ID +NAME +PREFIX +SCOPES +AGENT +STATUS +CREATED +LAST USED$/);
    expect(lines[1]!.split(/ {2,}/)).toEqual([
      ids[0],
      "third",
      secrets[2]!.slice(0, 8),
      "messages:read",
      "-",
      "active",
      "2026-06-01T10:03:00.000Z",
      "-",
    ]);
    expect(lines[2]!.split(/ {2,}/)[5]).toBe("expired");
    expect(run.stderr).toMatch(/^more keys: svcctl keys list --cursor \S+\n$/);
    for (const secret of secrets) expect(run.stdout + run.stderr).not.toContain(secret);
  });

  it("revoke takes effect at once; revoking again is harmless", async () => {
    const run = await svcctl(["keys", "revoke", ids[0]!], env, { now });
    expect(run).toEqual({
      code: 0,
      stdout: `revoked ${ids[0]} 'third' at 2026-06-01T10:00:00.000Z\n`,
      stderr: "",
    });
    await expect(authenticate({ prisma: db.prisma, now }, `Bearer ${secrets[2]}`)).rejects.toMatchObject({
      status: 401,
      detail: "API key revoked",
    });
    const again = await svcctl(["keys", "revoke", ids[0]!, "--json"], env, {
      now: () => new Date("2026-06-02T00:00:00Z"),
    });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: ids[0], revoked_at: "2026-06-01T10:00:00.000Z" });
    const listed = await svcctl(["keys", "list"], env, { now });
    expect(listed.stdout.split("\n")[1]!.split(/ {2,}/)[5]).toBe("revoked");
  });

  it("revoking an unknown id exits 4", async () => {
    expect(await svcctl(["keys", "revoke", "key_01J0000000000000000000000"], env)).toEqual({
      code: 4,
      stdout: "",
      stderr: "error: no API key 'key_01J0000000000000000000000'\n",
    });
  });

  it("an empty list says so on stderr", async () => {
    await db.prisma.apiKey.deleteMany();
    expect(await svcctl(["keys", "list"], env)).toEqual({ code: 0, stdout: "", stderr: "no API keys\n" });
    expect(await svcctl(["keys", "list", "--json"], env)).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ items: [], next_cursor: null }, null, 2)}\n`,
      stderr: "",
    });
  });
});
