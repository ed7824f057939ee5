import { prismaOf, type Database } from "../../transaction";

// One live preference token per person: only its nonce and SHA-256 are stored (the engine's
// links/link-tokens.ts derives the token). A new nonce kills the previous token at once.

export interface PreferenceTokenFields {
  nonce: string;
  token_hash: string;
  created_at: Date;
}

/** Stores the token, replacing the person's previous one. */
export async function replacePreferenceToken(
  db: Database,
  recipientId: string,
  token: PreferenceTokenFields,
): Promise<void> {
  const person = { recipient_id: recipientId };
  await prismaOf(db).preferenceToken.upsert({
    where: person,
    create: { ...person, ...token },
    update: token,
  });
}

/** The person whose live preference token hashes to `hash`, or null. */
export async function findRecipientIdByPreferenceTokenHash(
  db: Database,
  hash: string,
): Promise<string | null> {
  const row = await prismaOf(db).preferenceToken.findUnique({
    where: { token_hash: hash },
    select: { recipient_id: true },
  });
  return row?.recipient_id ?? null;
}
