import { ConfigError } from "@svc/config";
import { AppError } from "@svc/core";
import { QueueUnavailableError } from "@svc/queue";
import { MigrationError } from "@svc/store";
import { CliError, asDatabaseError, classifyError } from "../cli-error";

const targets = { database: "db:5432/svc", redis: "cache:6379" };

// What the driver adapter puts on Prisma errors (seen against a real Postgres).
const prismaError = (code: string, cause: Record<string, unknown>) =>
  Object.assign(new Error(`\nInvalid \`prisma.apiKey.findMany()\` invocation in\n/src/x.ts:4:29\n`), {
    code,
    meta: { driverAdapterError: { name: "DriverAdapterError", cause } },
  });
const socketError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("classifyError", () => {
  it.each([
    [new CliError(1, "check failed"), 1, "check failed"],
    [
      new ConfigError([
        { path: "api.port", message: "expected number, received string", source: "set by SVC__API__PORT" },
      ]),
      3,
      "invalid configuration: api.port: expected number, received string (set by SVC__API__PORT)",
    ],
    [new AppError("not_found", "no API key 'key_x'"), 4, "no API key 'key_x'"],
    [
      new AppError("unprocessable", "an agent-bound key cannot hold the admin scope"),
      2,
      "an agent-bound key cannot hold the admin scope",
    ],
    [new AppError("validation", "agent: no agent\n'x'"), 2, "agent: no agent 'x'"],
    [new AppError("unavailable", "redis down"), 5, "redis down"],
    [new AppError("conflict", "exists"), 1, "exists"],
    [new MigrationError("checksum_mismatch", "Migration a was changed"), 1, "Migration a was changed"],
    [new QueueUnavailableError("redis unavailable: x"), 5, "cannot reach Redis at cache:6379"],
    [
      prismaError("P1001", { kind: "DatabaseNotReachable", host: "db", port: 5432 }),
      5,
      "cannot reach the database at db:5432/svc",
    ],
    [
      prismaError("P2010", { kind: "DatabaseNotReachable", host: "db", port: 5432 }),
      5,
      "cannot reach the database at db:5432/svc",
    ],
    [
      prismaError("P1003", {
        kind: "DatabaseDoesNotExist",
        originalCode: "3D000",
        originalMessage: 'database "svc" does not exist',
      }),
      1,
      "database db:5432/svc does not exist: run 'svcctl migrate' to create it",
    ],
    [
      prismaError("P2010", {
        kind: "DatabaseAccessDenied",
        originalCode: "28000",
        originalMessage: 'role "x" does not exist',
      }),
      3,
      'the database at db:5432/svc refused the credentials of database.url (role "x" does not exist)',
    ],
    [
      prismaError("P2021", {
        kind: "TableDoesNotExist",
        originalMessage: 'relation "public.api_keys" does not exist',
      }),
      1,
      "the database at db:5432/svc is not migrated (relation \"public.api_keys\" does not exist): run 'svcctl migrate'",
    ],
    [prismaError("P2002", { kind: "UniqueConstraintViolation" }), 1, "database error P2002"],
    [
      socketError("3D000", 'database "svc" does not exist'),
      1,
      "database db:5432/svc does not exist: run 'svcctl migrate' to create it",
    ],
    [
      socketError("28P01", 'password authentication failed for user "svc"'),
      3,
      'the database at db:5432/svc refused the credentials of database.url (password authentication failed for user "svc")',
    ],
    [
      socketError("57P03", "the database system is starting up"),
      5,
      "cannot reach the database at db:5432/svc (the database system is starting up)",
    ],
    [
      socketError("ECONNREFUSED", "connect ECONNREFUSED 10.0.0.1:5432"),
      5,
      "cannot connect: connect ECONNREFUSED 10.0.0.1:5432",
    ],
    [new Error("boom\n  at somewhere"), 1, "boom at somewhere"],
    ["plain text", 1, "plain text"],
  ])("%#: exit %i, %s", (error, exitCode, message) => {
    const failure = classifyError(error, targets);
    expect({ exitCode: failure.exitCode, message: failure.message }).toEqual({ exitCode, message });
  });

  it("names the configured URL generically when the configuration never loaded", () => {
    expect(classifyError(prismaError("P1001", { kind: "DatabaseNotReachable" })).message).toBe(
      "cannot reach the database at the configured database.url",
    );
  });
});

describe("asDatabaseError", () => {
  it("names the database for socket errors and passes anything else through", () => {
    const wrapped = asDatabaseError(
      socketError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5999"),
      targets,
    );
    expect(wrapped).toBeInstanceOf(CliError);
    expect(wrapped).toMatchObject({
      exitCode: 5,
      message: "cannot reach the database at db:5432/svc (connect ECONNREFUSED 127.0.0.1:5999)",
    });
    const other = new Error("x");
    expect(asDatabaseError(other, targets)).toBe(other);
  });
});
