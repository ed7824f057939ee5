import type { PrismaClientOrTransaction } from "../../transaction";

// One live preference token per person: only its nonce and SHA-256 are stored (the engine's
// links/link-tokens.ts derives the token). A new nonce kills the previous token at once.

export interface PreferenceTokenFields {
  nonce: string;
  token_hash: string;
  created_at: Date;
}

/** The nonce of the person's live token, or null when none was made yet. */
export async function findPreferenceTokenNonce(
  db: PrismaClientOrTransaction,
  recipientId: string,
): Promise<string | null> {
  const row = await db.preferenceToken.findUnique({ where: { recipient_id: recipientId } });
  return row?.nonce ?? null;
}

/**
 * Stores the token unless the person already has one (a racing creator's stays), and returns the
 * nonce that is live afterwards.
 */
export async function insertPreferenceTokenOnce(
  db: PrismaClientOrTransaction,
  recipientId: string,
  token: PreferenceTokenFields,
): Promise<string> {
  await db.preferenceToken.createMany({
    data: [{ recipient_id: recipientId, ...token }],
    skipDuplicates: true,
  });
  const stored = await db.preferenceToken.findUniqueOrThrow({ where: { recipient_id: recipientId } });
  return stored.nonce;
}

/** Stores the token, replacing the person's previous one. */
export async function replacePreferenceToken(
  db: PrismaClientOrTransaction,
  recipientId: string,
  token: PreferenceTokenFields,
): Promise<void> {
  const person = { recipient_id: recipientId };
  await db.preferenceToken.upsert({ where: person, create: { ...person, ...token }, update: token });
}

/** The person whose live preference token hashes to `hash`, or null. */
export async function findRecipientIdByPreferenceTokenHash(
  db: PrismaClientOrTransaction,
  hash: string,
): Promise<string | null> {
  const row = await db.preferenceToken.findUnique({
    where: { token_hash: hash },
    select: { recipient_id: true },
  });
  return row?.recipient_id ?? null;
}
