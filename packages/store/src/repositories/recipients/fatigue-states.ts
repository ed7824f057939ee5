import type { FatigueState } from "@svc/core";
import type { FatigueStateRow } from "../../rows";
import { prismaOf, type Database } from "../../transaction";

// Fatigue per (person, category): messages since the last engagement, pause and probe
// (docs/policy.md "Fatigue").

export function findFatigueState(
  db: Database,
  recipientId: string,
  category: string,
): Promise<FatigueStateRow | null> {
  return prismaOf(db).fatigueState.findUnique({
    where: { recipient_id_category: { recipient_id: recipientId, category } },
  });
}

export async function saveFatigueState(
  db: Database,
  recipientId: string,
  category: string,
  state: FatigueState,
  now: Date,
): Promise<void> {
  const values = {
    sent_since_engagement: state.sentSinceEngagement,
    paused_until: state.pausedUntil,
    probe_message_id: state.probeMessageId,
    probe_sent_at: state.probeSentAt,
    updated_at: now,
  };
  await prismaOf(db).fatigueState.upsert({
    where: { recipient_id_category: { recipient_id: recipientId, category } },
    create: { recipient_id: recipientId, category, ...values },
    update: values,
  });
}
