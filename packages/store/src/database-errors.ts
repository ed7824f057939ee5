import { DatabaseError } from "pg";

// One classification of database errors for every caller (the accept path, svcctl), by codes and
// error classes only, never by message text. The same problem shows up as a Postgres SQLSTATE
// (`pg`'s DatabaseError), a Prisma code, a driver-adapter error kind (raw queries report P2010 with
// the kind inside), or a Node socket error code.

export type DatabaseErrorKind =
  /** Postgres could not be reached, went away, or is out of connections: retry later (503). */
  | "unavailable"
  /** The configured database does not exist. */
  | "missing_database"
  /** Postgres refused the credentials. */
  | "denied"
  /** A table or column is missing: migrations were not applied. */
  | "not_migrated"
  /** The row's content cannot be stored (SQLSTATE class 22, e.g. U+0000 in text). */
  | "data"
  /** A unique constraint said no. */
  | "unique_violation"
  /** Serialization failure or deadlock: the transaction may be retried as it is. */
  | "retryable";

export interface ClassifiedDatabaseError {
  kind: DatabaseErrorKind;
  /** The SQLSTATE, Prisma code, adapter kind or socket code that decided it. */
  code: string;
  /** Who said so: Postgres (a SQLSTATE), Prisma, its driver adapter, the socket, or `pg` (no answer). */
  via: "postgres" | "prisma" | "driver_adapter" | "socket" | "connection";
  /** The driver's own one-line message, when there is one (never Prisma's, which quotes source code). */
  detail?: string;
}

/** `pg` raised this without an answer from Postgres (connection ended, connect timed out): see wrapConnectionFailure. */
export class DatabaseUnavailableError extends Error {
  override readonly name = "DatabaseUnavailableError";
  readonly code = "connection_failure";
}

const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

const BY_CODE: Record<string, DatabaseErrorKind> = {
  // Prisma
  // DatabaseUnavailableError's code, also as Prisma reports it when our pg pool raised it
  // (client.ts: ClassifyingPool) under one of its own error classes.
  connection_failure: "unavailable",
  P1001: "unavailable",
  P1002: "unavailable",
  P1017: "unavailable",
  P1003: "missing_database",
  P1000: "denied",
  P1010: "denied",
  P2021: "not_migrated",
  P2022: "not_migrated",
  P2002: "unique_violation",
  P2034: "retryable",
  // driver adapter kinds
  DatabaseNotReachable: "unavailable",
  ConnectionClosed: "unavailable",
  SocketTimeout: "unavailable",
  TooManyConnections: "unavailable",
  DatabaseDoesNotExist: "missing_database",
  DatabaseAccessDenied: "denied",
  AuthenticationFailed: "denied",
  TableDoesNotExist: "not_migrated",
  ColumnNotFound: "not_migrated",
  UniqueConstraintViolation: "unique_violation",
  TransactionWriteConflict: "retryable",
  // SQLSTATEs named one by one (classes follow below)
  "3D000": "missing_database",
  "28000": "denied",
  "28P01": "denied",
  "42P01": "not_migrated",
  "42703": "not_migrated",
  "23505": "unique_violation",
  "40001": "retryable",
  "40P01": "retryable",
};

// SQLSTATE classes: 08 connection exception, 53 insufficient resources, 57 operator intervention
// (server shutting down, session terminated), 22 data exception.
const BY_CLASS: Record<string, DatabaseErrorKind> = {
  "08": "unavailable",
  "53": "unavailable",
  "57": "unavailable",
  "22": "data",
};

const SQLSTATE = /^[0-9A-Z]{5}$/;
const PRISMA_CODE = /^P\d{4}$/;

/** What kind of database failure this is, or null when it is not one svc knows. */
export function classifyDatabaseError(error: unknown): ClassifiedDatabaseError | null {
  if (error instanceof DatabaseUnavailableError)
    return { kind: "unavailable", code: error.code, via: "connection", detail: oneLine(error.message) };
  if (error instanceof AggregateError) {
    // One error per address tried: the connection failed if any of them is a socket error.
    for (const one of error.errors) {
      const classified = classifyDatabaseError(one);
      if (classified) return classified;
    }
    return null;
  }
  if (typeof error !== "object" || error === null) return null;
  const { code, meta, message } = error as {
    code?: unknown;
    message?: unknown;
    meta?: {
      driverAdapterError?: { cause?: { kind?: string; originalCode?: string; originalMessage?: string } };
    };
  };
  const cause = meta?.driverAdapterError?.cause;
  const isPrisma = typeof code === "string" && PRISMA_CODE.test(code);
  const text = isPrisma ? cause?.originalMessage : typeof message === "string" ? oneLine(message) : undefined;
  const detail = text ? { detail: text } : {};
  const candidates: [unknown, ClassifiedDatabaseError["via"]][] = [
    [cause?.kind, "driver_adapter"],
    [cause?.originalCode, "postgres"],
    [code, isPrisma ? "prisma" : "postgres"],
  ];
  for (const [candidate, via] of candidates) {
    if (typeof candidate !== "string") continue;
    if (SOCKET_CODES.has(candidate))
      return { kind: "unavailable", code: candidate, via: "socket", ...detail };
    const kind =
      BY_CODE[candidate] ?? (SQLSTATE.test(candidate) ? BY_CLASS[candidate.slice(0, 2)] : undefined);
    if (kind) return { kind, code: candidate, via, ...detail };
  }
  return null;
}

/**
 * What `pg` raises when Postgres never answered (the connection ended mid-query, a connect timed
 * out) carries no code; every answer from the server is a DatabaseError with a SQLSTATE. Statements
 * sent through `pg` directly pass their errors through this, so the classification stays by class.
 */
export function wrapConnectionFailure(error: unknown): unknown {
  if (error instanceof DatabaseError || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") return error;
  if (error instanceof AggregateError) return error;
  return new DatabaseUnavailableError(error.message, { cause: error });
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ").trim();
