import {
  AppError,
  fatigueAfterEngagement,
  isLinkTokenShaped,
  linkTokenHash,
  type Principal,
} from "@svc/core";
import type { PrismaClient } from "@svc/store";
import { saveFatigue } from "../compose/write-message";

// Engagement (SPEC 3.1, 1.3; DECISIONS "Messages", "Policy"): `delivered` confirms delivery
// (`sent` → `delivered`); opened, clicked and converted are engagement: they stamp the message and
// end the person's fatigue for its category. One row per (message, type): repeats change nothing.

export const ENGAGEMENT_TYPES = ["delivered", "opened", "clicked", "converted"] as const;
export type EngagementType = (typeof ENGAGEMENT_TYPES)[number];

export interface EngagementInput {
  type: EngagementType;
}

export interface EngagementResult {
  message_id: string;
  type: EngagementType;
  /** False when this type was already recorded for the message. */
  recorded: boolean;
}

const STAMP = { opened: "opened_at", clicked: "clicked_at", converted: "converted_at" } as const;

/** `POST /v1/messages/{id}/engagement`: 404 unknown, 403 for an agent key reaching another sender's message. */
export async function recordMessageEngagement(
  deps: { prisma: PrismaClient; now: () => Date },
  principal: Principal,
  messageId: string,
  input: EngagementInput,
): Promise<EngagementResult> {
  const message = await deps.prisma.message.findUnique({
    where: { id: messageId },
    select: { agent_key: true },
  });
  if (!message) throw new AppError("not_found", `no message '${messageId}'`);
  if (principal.agentKey !== null && message.agent_key !== principal.agentKey) {
    throw new AppError("forbidden", "agent keys may only reach their own messages");
  }
  return recordEngagement(deps, messageId, input.type, `api:${principal.keyId}`);
}

/** `POST /v1/track/{token}`: the message's tracking token authenticates; only its SHA-256 is stored. */
export async function recordTrackedEngagement(
  deps: { prisma: PrismaClient; now: () => Date },
  token: string,
  input: EngagementInput,
): Promise<EngagementResult> {
  const message = isLinkTokenShaped(token)
    ? await deps.prisma.message.findUnique({
        where: { tracking_token_hash: linkTokenHash(token) },
        select: { id: true },
      })
    : null;
  if (!message) throw new AppError("not_found", "unknown tracking token");
  return recordEngagement(deps, message.id, input.type, "track");
}

export async function recordEngagement(
  { prisma, now: clock }: { prisma: PrismaClient; now: () => Date },
  messageId: string,
  type: EngagementType,
  source: string,
): Promise<EngagementResult> {
  const now = clock();
  return prisma.$transaction(async (tx) => {
    // The unique (message, type) row decides which of two racing reports does the work.
    const { count } = await tx.engagement.createMany({
      data: [{ message_id: messageId, type, source, created_at: now }],
      skipDuplicates: true,
    });
    if (count === 0) return { message_id: messageId, type, recorded: false };
    if (type === "delivered") {
      await tx.message.updateMany({
        where: { id: messageId, status: "sent" },
        data: { status: "delivered", delivered_at: now, updated_at: now },
      });
    } else {
      const message = await tx.message.update({
        where: { id: messageId },
        data: { [STAMP[type]]: now, updated_at: now },
        select: { recipient_id: true, category: true },
      });
      await saveFatigue(tx, message.recipient_id, message.category, fatigueAfterEngagement(), now);
    }
    return { message_id: messageId, type, recorded: true };
  });
}
