import type { FatigueState } from "@svc/core";
import type { FatigueStateRow } from "../../rows";
import { prismaOf, sqlOf, type Database } from "../../transaction";

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
  // Raw (sqlOf): it runs in a batch of direct sends' transaction too.
  await sqlOf(db).execute(SAVE_FATIGUE_SQL, [
    recipientId,
    category,
    state.sentSinceEngagement,
    state.pausedUntil?.toISOString() ?? null,
    state.probeMessageId,
    state.probeSentAt?.toISOString() ?? null,
    now.toISOString(),
  ]);
}

const SAVE_FATIGUE_SQL = `INSERT INTO fatigue_states
    (recipient_id, category, sent_since_engagement, paused_until, probe_message_id, probe_sent_at, updated_at)
  VALUES ($1, $2, $3::int, $4::timestamptz, $5, $6::timestamptz, $7::timestamptz)
  ON CONFLICT (recipient_id, category) DO UPDATE SET
    sent_since_engagement = EXCLUDED.sent_since_engagement, paused_until = EXCLUDED.paused_until,
    probe_message_id = EXCLUDED.probe_message_id, probe_sent_at = EXCLUDED.probe_sent_at,
    updated_at = EXCLUDED.updated_at`;
