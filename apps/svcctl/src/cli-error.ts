import { ConfigError } from "@svc/config";
import { AppError } from "@svc/core";
import { QueueUnavailableError } from "@svc/queue";
import { MigrationError } from "@svc/store";
import { EXIT, type ExitCode } from "./exit-codes";

/** A failure the CLI already put into words, with the exit code it deserves. */
export class CliError extends Error {
  override readonly name = "CliError";

  constructor(
    readonly exitCode: ExitCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Where the configured services live, credentials removed; named in "cannot reach" lines. */
export interface Targets {
  database?: string;
  redis?: string;
}

// Node socket errors (pg, ioredis): the service is down or not reachable from here.
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

type DatabaseProblem = "unreachable" | "missing" | "denied" | "not_migrated";

// The same problem shows up as a Prisma code, a driver-adapter kind (raw queries report P2010 with
// the kind inside) or a Postgres SQLSTATE (the pg client used by migrations).
const DATABASE_PROBLEMS: Record<string, DatabaseProblem> = {
  P1001: "unreachable",
  P1002: "unreachable",
  P1017: "unreachable",
  DatabaseNotReachable: "unreachable",
  ConnectionClosed: "unreachable",
  SocketTimeout: "unreachable",
  TooManyConnections: "unreachable",
  "57P01": "unreachable",
  "57P03": "unreachable",
  "53300": "unreachable",
  P1003: "missing",
  DatabaseDoesNotExist: "missing",
  "3D000": "missing",
  P1000: "denied",
  P1010: "denied",
  DatabaseAccessDenied: "denied",
  AuthenticationFailed: "denied",
  "28000": "denied",
  "28P01": "denied",
  P2021: "not_migrated",
  P2022: "not_migrated",
  TableDoesNotExist: "not_migrated",
  ColumnNotFound: "not_migrated",
  "42P01": "not_migrated",
  "42703": "not_migrated",
};

function databaseFailure(problem: DatabaseProblem, original: string | undefined, targets: Targets): CliError {
  const where = targets.database ?? "the configured database.url";
  const detail = original ? ` (${original})` : "";
  switch (problem) {
    case "unreachable":
      return new CliError(EXIT.unavailable, `cannot reach the database at ${where}${detail}`);
    case "missing":
      return new CliError(
        EXIT.failure,
        `database ${where} does not exist: run 'svcctl migrate' to create it`,
      );
    case "denied":
      return new CliError(
        EXIT.config,
        `the database at ${where} refused the credentials of database.url${detail}`,
      );
    case "not_migrated":
      return new CliError(
        EXIT.failure,
        `the database at ${where} is not migrated${detail}: run 'svcctl migrate'`,
      );
  }
}

/** Socket errors of a client known to talk to Postgres (the migration runner's pg client) name the database. */
export function asDatabaseError(error: unknown, targets: Targets): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== "string" || !NETWORK_CODES.has(code)) return error;
  const where = targets.database ?? "the configured database.url";
  return new CliError(
    EXIT.unavailable,
    `cannot reach the database at ${where} (${oneLine(String(message))})`,
    {
      cause: error,
    },
  );
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ").trim();

/** Maps anything a command threw to one stderr line and an exit code. */
export function classifyError(error: unknown, targets: Targets = {}): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof ConfigError) return new CliError(EXIT.config, error.message);
  if (error instanceof AppError) {
    const code: ExitCode =
      error.status === 404
        ? EXIT.notFound
        : error.status === 400 || error.status === 422
          ? EXIT.usage
          : error.status === 503
            ? EXIT.unavailable
            : EXIT.failure;
    return new CliError(code, oneLine(error.detail));
  }
  if (error instanceof MigrationError) return new CliError(EXIT.failure, oneLine(error.message));
  if (error instanceof QueueUnavailableError) {
    return new CliError(
      EXIT.unavailable,
      `cannot reach Redis at ${targets.redis ?? "the configured redis.url"}`,
    );
  }
  const { code, meta, message } = (error ?? {}) as {
    code?: unknown;
    meta?: { driverAdapterError?: { cause?: { kind?: string; originalMessage?: string } } };
    message?: unknown;
  };
  if (typeof code === "string") {
    if (NETWORK_CODES.has(code))
      return new CliError(EXIT.unavailable, `cannot connect: ${oneLine(String(message))}`);
    const cause = meta?.driverAdapterError?.cause;
    const isPrisma = /^P\d{4}$/.test(code);
    // Prisma's own messages span lines and quote our source: show the driver's one-liner instead.
    const original = isPrisma ? cause?.originalMessage : oneLine(String(message));
    const problem = DATABASE_PROBLEMS[cause?.kind ?? ""] ?? DATABASE_PROBLEMS[code];
    if (problem) return databaseFailure(problem, original, targets);
    if (isPrisma)
      return new CliError(EXIT.failure, `database error ${code}${original ? ` (${original})` : ""}`);
  }
  return new CliError(
    EXIT.failure,
    oneLine(error instanceof Error ? error.message : String(error)) || "unknown error",
  );
}
