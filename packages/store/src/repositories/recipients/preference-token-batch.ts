import { Prisma } from "../../generated/prisma/client";
import { prismaOf, type Database } from "../../transaction";

// Preference tokens of many people at once, for delivery's links (docs/preferences.md "Links").

export interface NewPreferenceToken {
  recipientId: string;
  nonce: string;
  tokenHash: string;
}

/**
 * Creates the tokens of people who have none (a person erased meanwhile is skipped; a racing
 * creator wins), then returns the stored nonce of each of them.
 */
export async function createPreferenceTokens(
  db: Database,
  tokens: readonly NewPreferenceToken[],
  now: Date,
): Promise<{ recipient_id: string; nonce: string }[]> {
  if (tokens.length === 0) return [];
  await prismaOf(db).$executeRaw(Prisma.sql`
    INSERT INTO preference_tokens (recipient_id, nonce, token_hash, created_at)
    SELECT id, nonce, hash, ${now} FROM unnest(${tokens.map((t) => t.recipientId)}::text[], ${tokens.map((t) => t.nonce)}::text[], ${tokens.map((t) => t.tokenHash)}::text[]) AS f(id, nonce, hash)
    WHERE EXISTS (SELECT 1 FROM recipients r WHERE r.id = f.id)
    ON CONFLICT DO NOTHING`);
  return prismaOf(db).preferenceToken.findMany({
    where: { recipient_id: { in: tokens.map((t) => t.recipientId) } },
    select: { recipient_id: true, nonce: true },
  });
}
