import { DatabaseError } from "pg";
import { classifyDatabaseError, DatabaseUnavailableError, wrapConnectionFailure } from "../database-errors";

// Classification by codes and classes only: the same messages with other codes classify otherwise.

const pgError = (code: string, message = "from postgres") => {
  const error = new DatabaseError(message, message.length, "error");
  error.code = code;
  return error;
};
const prismaError = (code: string, cause: Record<string, unknown> = {}) =>
  Object.assign(new Error("\nInvalid `prisma.x()` invocation in\n/src/x.ts:4:29\n"), {
    code,
    meta: { driverAdapterError: { name: "DriverAdapterError", cause } },
  });
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });

test.each([
  [
    pgError("57P01", "terminating connection due to administrator command"),
    "unavailable",
    "57P01",
    "postgres",
  ],
  [pgError("08006"), "unavailable", "08006", "postgres"],
  [pgError("53300"), "unavailable", "53300", "postgres"],
  [pgError("22P05", "unsupported Unicode escape sequence"), "data", "22P05", "postgres"],
  [pgError("23505"), "unique_violation", "23505", "postgres"],
  [pgError("40001"), "retryable", "40001", "postgres"],
  [pgError("40P01"), "retryable", "40P01", "postgres"],
  [pgError("3D000"), "missing_database", "3D000", "postgres"],
  [pgError("28P01"), "denied", "28P01", "postgres"],
  [pgError("42P01"), "not_migrated", "42P01", "postgres"],
  [prismaError("P2002"), "unique_violation", "P2002", "prisma"],
  [prismaError("P2034"), "retryable", "P2034", "prisma"],
  [prismaError("P1001"), "unavailable", "P1001", "prisma"],
  [
    prismaError("P2010", { kind: "UniqueConstraintViolation" }),
    "unique_violation",
    "UniqueConstraintViolation",
    "driver_adapter",
  ],
  [
    prismaError("P2010", { kind: "TransactionWriteConflict" }),
    "retryable",
    "TransactionWriteConflict",
    "driver_adapter",
  ],
  [prismaError("P2010", { originalCode: "23505" }), "unique_violation", "23505", "postgres"],
  [socketError("ECONNREFUSED"), "unavailable", "ECONNREFUSED", "socket"],
  [
    new AggregateError([socketError("ECONNREFUSED"), socketError("ECONNREFUSED")]),
    "unavailable",
    "ECONNREFUSED",
    "socket",
  ],
  [
    new DatabaseUnavailableError("Connection terminated unexpectedly"),
    "unavailable",
    "connection_failure",
    "connection",
  ],
])("%#: %s is %s", (error, kind, code, via) => {
  expect(classifyDatabaseError(error)).toMatchObject({ kind, code, via });
});

test("what is not a database error is not classified", () => {
  expect(classifyDatabaseError(new Error("Connection terminated unexpectedly"))).toBeNull();
  expect(classifyDatabaseError(pgError("42601", "syntax error"))).toBeNull();
  expect(classifyDatabaseError("text")).toBeNull();
  expect(classifyDatabaseError(null)).toBeNull();
});

test("Prisma's own message is never the detail (it quotes source code); the driver's is", () => {
  expect(classifyDatabaseError(prismaError("P1001"))).not.toHaveProperty("detail");
  expect(
    classifyDatabaseError(prismaError("P2010", { kind: "TableDoesNotExist", originalMessage: "no table" })),
  ).toMatchObject({
    detail: "no table",
  });
});

test("pg errors without an answer from Postgres become DatabaseUnavailableError; answers stay as they are", () => {
  const ended = new Error("Connection terminated unexpectedly");
  const wrapped = wrapConnectionFailure(ended);
  expect(wrapped).toBeInstanceOf(DatabaseUnavailableError);
  expect((wrapped as Error).cause).toBe(ended);
  const answer = pgError("22P05");
  expect(wrapConnectionFailure(answer)).toBe(answer);
  const socket = socketError("ECONNRESET");
  expect(wrapConnectionFailure(socket)).toBe(socket);
});
