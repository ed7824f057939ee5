import { classifyDatabaseError } from "./database-errors";
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
export type BroadcastRow = Prisma.BroadcastModel;
export type BroadcastChunkRow = Prisma.BroadcastChunkModel;
export type ConsentEntryRow = Prisma.ConsentEntryModel;
export type ConsentRow = Prisma.ConsentModel;
export type FatigueStateRow = Prisma.FatigueStateModel;

/** A unique constraint said no (classified in database-errors.ts). */
export function isUniqueViolation(error: unknown): boolean {
  return classifyDatabaseError(error)?.kind === "unique_violation";
}
