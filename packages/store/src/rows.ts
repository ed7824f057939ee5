import { Prisma } from "./generated/prisma/client";

// Short names for row types, so use cases read `RuleRow` rather than `Prisma.RuleModel`.
export type ApiKeyRow = Prisma.ApiKeyModel;
export type AgentRow = Prisma.AgentModel;
export type CategoryRow = Prisma.CategoryModel;
export type TemplateRow = Prisma.TemplateModel;
export type RuleRow = Prisma.RuleModel;
export type RecipientRow = Prisma.RecipientModel;
export type AddressRow = Prisma.AddressModel;
export type EventRow = Prisma.EventModel;
export type EventOutcomeRow = Prisma.EventOutcomeModel;
export type MessageRow = Prisma.MessageModel;
export type DigestRow = Prisma.DigestModel;
export type ConsentEntryRow = Prisma.ConsentEntryModel;
export type ConsentRow = Prisma.ConsentModel;
export type FatigueStateRow = Prisma.FatigueStateModel;

/** A unique constraint said no (Prisma P2002, or the driver's SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, meta } = error as {
    code?: unknown;
    meta?: { driverAdapterError?: { cause?: { kind?: string; originalCode?: string } } };
  };
  if (code === "P2002" || code === "23505") return true;
  const cause = meta?.driverAdapterError?.cause;
  return cause?.kind === "UniqueConstraintViolation" || cause?.originalCode === "23505";
}
