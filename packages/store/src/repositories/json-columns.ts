import { Prisma } from "../generated/prisma/client";

// Prisma tells a JSON `null` value from SQL NULL; svc's nullable JSON columns store SQL NULL.

/** A value for a nullable JSON column: null becomes SQL NULL, undefined leaves the column alone. */
export function nullableJson(value: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull | undefined {
  if (value === undefined) return undefined;
  return value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

/** A value for a JSON column that is never null; undefined leaves the column alone. */
export function json(value: unknown): Prisma.InputJsonValue | undefined {
  return value === undefined ? undefined : (value as Prisma.InputJsonValue);
}
