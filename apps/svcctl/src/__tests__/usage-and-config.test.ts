import fs from "node:fs";
import path from "node:path";
import { EMPTY_CWD, svcctl } from "./harness";

// Everything that fails before (or instead of) touching a healthy service: usage, configuration
// and unreachable services, with the exit codes scripts rely on. No database is needed here.

const UNREACHABLE_DB = { DATABASE_URL: "postgresql://svc:s3cret@127.0.0.1:1/svc" };

describe("usage errors exit 2 with commander's one-line message", () => {
  it.each([
    [["kyes"], "error: unknown command 'kyes'\n(Did you mean keys?)\n"],
    [["keys", "create", "-s", "admin"], "error: missing required argument 'name'\n"],
    [["keys", "create", "bot"], "error: required option '-s, --scope <scope>' not specified\n"],
    [
      ["keys", "create", "bot", "-s", "root"],
      "error: option '-s, --scope <scope>' argument 'root' is invalid. unknown scope 'root' (one of events:write, messages:read, messages:write, recipients:read, recipients:write, admin).\n",
    ],
    [
      ["keys", "list", "--limit", "0"],
      "error: option '--limit <n>' argument '0' is invalid. expected a whole number from 1 to 500.\n",
    ],
    [["keys", "list", "--all"], "error: unknown option '--all'\n"],
    [["keys", "revoke"], "error: missing required argument 'id'\n"],
    [
      ["keys", "revoke", "key_a", "key_b"],
      "error: too many arguments for 'revoke'. Expected 1 argument but got 2.\n",
    ],
    [
      ["jobs", "retry-dead", "--queue", "email"],
      "error: option '--queue <name>' argument 'email' is invalid. Allowed choices are ingest, policy, delivery, digests, screening, callbacks, webhooks, broadcasts, scheduler.\n",
    ],
    [
      ["callbacks", "list", "--status", "lost"],
      "error: option '--status <status>' argument 'lost' is invalid. Allowed choices are pending, delivered, failed.\n",
    ],
    [["callbacks", "retry"], "error: missing required argument 'id'\n"],
  ])("svcctl %j", async (argv, stderr) => {
    expect(await svcctl(argv, UNREACHABLE_DB)).toEqual({ code: 2, stdout: "", stderr });
  });

  it.each([
    [[], /^Usage: svcctl \[options\] \[command\]/],
    [["keys"], /^Usage: svcctl keys \[options\] \[command\]/],
    [["jobs"], /^Usage: svcctl jobs \[options\] \[command\]/],
    [["callbacks"], /^Usage: svcctl callbacks \[options\] \[command\]/],
  ])("%j without a subcommand shows its help on stderr and exits 2", async (argv, usage) => {
    const run = await svcctl(argv, UNREACHABLE_DB);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: "" });
    expect(run.stderr).toMatch(usage);
  });
});

describe("help and version exit 0", () => {
  it("--help lists the commands and documents the exit codes", async () => {
    const run = await svcctl(["--help"], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: svcctl \[options\] \[command\]/);
    for (const command of ["keys", "migrate [options]", "jobs", "callbacks"])
      expect(run.stdout).toContain(`\n  ${command} `);
    expect(run.stdout).toContain(
      [
        "Exit codes:",
        "  0  ok",
        "  1  the operation failed (e.g. migrate --check found pending migrations or drift)",
        "  2  usage error (unknown command or option, missing or invalid argument)",
        "  3  configuration error (invalid svc.yaml / SVC__* variables, database credentials refused,",
        "     no SVC_URL / SVC_API_KEY, the API refused the key)",
        "  4  not found (e.g. revoking an unknown key id, an API 404)",
        "  5  service unavailable (Postgres, Redis or the API unreachable; retrying later may help)",
      ].join("\n"),
    );
  });

  it.each([
    [["keys", "create", "--help"], "Usage: svcctl keys create [options] <name>"],
    [["keys", "help", "list"], "Usage: svcctl keys list [options]"],
    [["migrate", "--help"], "Usage: svcctl migrate [options]"],
    [["jobs", "retry-dead", "-h"], "Usage: svcctl jobs retry-dead [options]"],
  ])("%j", async (argv, usage) => {
    const run = await svcctl(argv, { SVC__API__PORT: "abc" });
    expect({ code: run.code, first: run.stdout.split("\n")[0], stderr: run.stderr }).toEqual({
      code: 0,
      first: usage,
      stderr: "",
    });
  });

  it("--version prints the package version", async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, "../../package.json"), "utf8")) as {
      version: string;
    };
    expect(await svcctl(["--version"], {})).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  });
});

describe("configuration errors exit 3", () => {
  it.each([
    [
      { SVC__API__PORT: "abc" },
      [],
      "error: invalid configuration: api.port: expected number, received string (set by SVC__API__PORT)\n",
    ],
    [
      { SVC_CONFIG: "missing.yaml" },
      [],
      `error: invalid configuration: configuration file not found: ${path.join(EMPTY_CWD, "missing.yaml")} (SVC_CONFIG)\n`,
    ],
    [
      {},
      ["--config", "/nonexistent/svc.yaml"],
      "error: invalid configuration: configuration file not found: /nonexistent/svc.yaml\n",
    ],
  ])("%j %j", async (env, flags, stderr) => {
    expect(await svcctl([...flags, "keys", "list"], env)).toEqual({ code: 3, stdout: "", stderr });
  });

  it("--config reads the named file (relative to the working directory)", async () => {
    fs.writeFileSync(path.join(EMPTY_CWD, "other.yaml"), "api:\n  port: high\n");
    const run = await svcctl(["keys", "list", "-c", "other.yaml"], {});
    expect(run).toEqual({
      code: 3,
      stdout: "",
      stderr: `error: invalid configuration: api.port: expected number, received string (in ${path.join(EMPTY_CWD, "other.yaml")})\n`,
    });
  });

  it("a database role that does not exist is a configuration error", async () => {
    const run = await svcctl(["keys", "list"], {
      DATABASE_URL: "postgresql://svcctl_no_such_role:pw@127.0.0.1:5432/postgres",
    });
    expect(run).toEqual({
      code: 3,
      stdout: "",
      stderr:
        'error: the database at 127.0.0.1:5432/postgres refused the credentials of database.url (role "svcctl_no_such_role" does not exist)\n',
    });
  });
});

describe("unreachable services exit 5, naming where without credentials", () => {
  it.each([
    [["keys", "list"], "error: cannot reach the database at 127.0.0.1:1/svc\n"],
    [["keys", "create", "x", "-s", "admin"], "error: cannot reach the database at 127.0.0.1:1/svc\n"],
    [["migrate"], "error: cannot reach the database at 127.0.0.1:1/svc (connect ECONNREFUSED 127.0.0.1:1)\n"],
    [
      ["migrate", "--check"],
      "error: cannot reach the database at 127.0.0.1:1/svc (connect ECONNREFUSED 127.0.0.1:1)\n",
    ],
  ])("Postgres: %j", async (argv, stderr) => {
    expect(await svcctl(argv, UNREACHABLE_DB)).toEqual({ code: 5, stdout: "", stderr });
  });

  it("Redis: jobs retry-dead", async () => {
    const run = await svcctl(
      ["jobs", "retry-dead"],
      { REDIS_URL: "redis://:hunter2@127.0.0.1:1" },
      { redisTimeoutMs: 300 },
    );
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(
      /^error: cannot reach Redis at 127\.0\.0\.1:1 \(no connection within 300 ms \(status \w+\)\)\n$/,
    );
    expect(run.stderr).not.toContain("hunter2");
  });
});

describe("a database that is missing or not migrated exits 1", () => {
  it("names the missing database and the fix", async () => {
    const run = await svcctl(["keys", "list"], {
      DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/svcctl_never_created",
    });
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "error: database 127.0.0.1:5432/svcctl_never_created does not exist: run 'svcctl migrate' to create it\n",
    });
  });
});
