import type { Prisma } from "../../generated/prisma/client";
import { json, nullableJson } from "../json-columns";
import { transactionOf, type Transaction } from "../../transaction";

// Writes of the recipient row. Preferences live on it (one row to lock and re-check at send time);
// callers hold the person's lock (the engine's preferences-self-service/lock-person.ts).

/** Profile fields; absent ones are left as stored. */
export interface RecipientProfileFields {
  locale?: string | null;
  timezone?: string | null;
  region?: string | null;
  attributes?: Record<string, unknown>;
}

export async function insertRecipient(
  tx: Transaction,
  recipient: { id: string; external_id: string; profile: RecipientProfileFields; now: Date },
): Promise<void> {
  const { id, external_id, profile, now } = recipient;
  await transactionOf(tx).recipient.create({
    data: { id, external_id, ...profileColumns(profile), created_at: now, updated_at: now },
  });
}

/** Writes the given profile fields (none: only `updated_at`). */
export async function updateRecipientProfile(
  tx: Transaction,
  id: string,
  profile: RecipientProfileFields,
  now: Date,
): Promise<void> {
  await transactionOf(tx).recipient.update({
    where: { id },
    data: { ...profileColumns(profile), updated_at: now },
  });
}

function profileColumns(profile: RecipientProfileFields) {
  const columns: {
    locale?: string | null;
    timezone?: string | null;
    region?: string | null;
    attributes?: Prisma.InputJsonValue;
  } = {};
  for (const field of ["locale", "timezone", "region"] as const)
    if (profile[field] !== undefined) columns[field] = profile[field];
  if (profile.attributes !== undefined) columns.attributes = json(profile.attributes);
  return columns;
}

/** Preference fields; absent ones are left as stored. */
export interface RecipientPreferenceFields {
  unsubscribed_categories?: string[];
  muted_channels?: string[];
  /** Null: the policy's quiet hours apply. */
  quiet_hours?: { start: string; end: string } | null;
}

export async function updateRecipientPreferences(
  tx: Transaction,
  id: string,
  preferences: RecipientPreferenceFields,
  now: Date,
): Promise<void> {
  await transactionOf(tx).recipient.update({
    where: { id },
    data: { ...preferences, quiet_hours: nullableJson(preferences.quiet_hours), updated_at: now },
  });
}
