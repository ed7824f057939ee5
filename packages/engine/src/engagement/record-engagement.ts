import {
  AppError,
  fatigueAfterEngagement,
  isLinkTokenShaped,
  linkTokenHash,
  type Principal,
} from "@svc/core";
import {
  findMessage,
  findMessageIdByTrackingHash,
  insertEngagement,
  markMessageDelivered,
  saveFatigueState,
  stampMessageEngagement,
  type PrismaClient,
} from "@svc/store";
import { recordFinalMessage } from "../metrics/record-metrics";

// Engagement (docs/messages.md, "Engagement and tracking"): `delivered` confirms delivery
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

/** `POST /v1/messages/{id}/engagement`: 404 unknown, 403 for an agent key reaching another sender's message. */
export async function recordMessageEngagement(
  deps: { prisma: PrismaClient; now: () => Date },
  principal: Principal,
  messageId: string,
  input: EngagementInput,
): Promise<EngagementResult> {
  const message = await findMessage(deps.prisma, messageId);
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
    ? await findMessageIdByTrackingHash(deps.prisma, linkTokenHash(token))
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
  let delivered = false;
  const result = await prisma.$transaction(async (tx) => {
    // The unique (message, type) row decides which of two racing reports does the work.
    const recorded = await insertEngagement(tx, { messageId, type, source, at: now });
    if (!recorded) return { message_id: messageId, type, recorded: false };
    if (type === "delivered") {
      delivered = await markMessageDelivered(tx, messageId, now);
    } else {
      const message = await stampMessageEngagement(tx, messageId, type, now);
      await saveFatigueState(tx, message.recipient_id, message.category, fatigueAfterEngagement(), now);
    }
    return { message_id: messageId, type, recorded: true };
  });
  if (delivered) recordFinalMessage("delivered", null);
  return result;
}
