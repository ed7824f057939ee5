import { ConfigError } from "@svc/config";
import { AppError } from "@svc/core";
import { QueueUnavailableError } from "@svc/queue";
import { classifyDatabaseError, MigrationError, type DatabaseErrorKind } from "@svc/store";
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

type DatabaseProblem = "unreachable" | "missing" | "denied" | "not_migrated";

// The store classifies database errors by code (packages/store/src/database-errors.ts); these are
// the kinds an operator can act on.
const PROBLEMS: Partial<Record<DatabaseErrorKind, DatabaseProblem>> = {
  unavailable: "unreachable",
  missing_database: "missing",
  denied: "denied",
  not_migrated: "not_migrated",
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
  const classified = classifyDatabaseError(error);
  if (classified?.via !== "socket") return error;
  const where = targets.database ?? "the configured database.url";
  const detail = classified.detail ? ` (${classified.detail})` : "";
  return new CliError(EXIT.unavailable, `cannot reach the database at ${where}${detail}`, { cause: error });
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
  const classified = classifyDatabaseError(error);
  if (classified) {
    // A socket error of unknown origin (Redis or Postgres): say only that the connection failed.
    if (classified.via === "socket")
      return new CliError(EXIT.unavailable, `cannot connect: ${classified.detail ?? classified.code}`);
    const problem = PROBLEMS[classified.kind];
    if (problem) return databaseFailure(problem, classified.detail, targets);
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^P\d{4}$/.test(code)) {
    const detail = classified?.detail;
    return new CliError(EXIT.failure, `database error ${code}${detail ? ` (${detail})` : ""}`);
  }
  return new CliError(
    EXIT.failure,
    oneLine(error instanceof Error ? error.message : String(error)) || "unknown error",
  );
}
