import { AppError, newId, type Principal, type ValidationIssue } from "@svc/core";
import {
  $transaction,
  findCategories,
  findRecipientByExternalId,
  getRecipientById,
  insertLedgerEntry,
  updateRecipientPreferences,
  type RootDatabase,
  type RecipientPreferenceFields,
  type Transaction,
} from "@svc/store";
import { validationError } from "../shared/validation";
import { emitWebhookEvents, preferencesChangedEmission } from "../outbox/emit";
import { assertMayWritePeople } from "../shared/may-write-people";

export interface PreferencesInput {
  unsubscribed_categories?: string[];
  muted_channels?: string[];
  quiet_hours?: { start: string; end: string } | null;
}

type LedgerSourceName = "api" | "self_service" | "one_click" | "sms_keyword";

export interface PreferenceChange {
  source: LedgerSourceName;
  provenance: Record<string, unknown>;
}

type QuietHours = { start: string; end: string };

// Compared by field: jsonb hands keys back in its own order ({end, start}).
const sameQuietHours = (a: QuietHours | null, b: QuietHours | null) =>
  a === null || b === null ? a === b : a.start === b.start && a.end === b.end;

const diff = (before: string[], after: string[]) => ({
  added: after.filter((x) => !before.includes(x)),
  removed: before.filter((x) => !after.includes(x)),
});

/**
 * Applies a preference change and writes its consent-ledger entry, and the entry's
 * `recipient.preferences_changed` webhook event, in the same transaction, so no change is ever
 * unrecorded. Every source (API, hosted page, one-click, text keyword) comes here.
 * A request that changes nothing writes no entry (the ledger records changes).
 */
export async function changePreferences(
  tx: Transaction,
  recipientId: string,
  input: PreferencesInput,
  change: PreferenceChange,
  now: Date,
) {
  const row = await getRecipientById(tx, recipientId);
  const changes: Record<string, unknown> = {};
  const data: RecipientPreferenceFields = {};
  for (const field of ["unsubscribed_categories", "muted_channels"] as const) {
    const wanted = input[field];
    if (!wanted) continue;
    const next = [...new Set(wanted)];
    const d = diff(row[field], next);
    if (d.added.length + d.removed.length > 0) {
      changes[field] = d;
      data[field] = next;
    }
  }
  if (
    input.quiet_hours !== undefined &&
    !sameQuietHours(input.quiet_hours, row.quiet_hours as QuietHours | null)
  ) {
    changes.quiet_hours = { from: row.quiet_hours ?? null, to: input.quiet_hours };
    data.quiet_hours = input.quiet_hours;
  }
  if (Object.keys(changes).length === 0) return { changed: false as const };
  await updateRecipientPreferences(tx, recipientId, data, now);
  const entry = await insertLedgerEntry(tx, {
    id: newId("ledger"),
    recipient_id: recipientId,
    source: change.source,
    changes,
    provenance: change.provenance,
    created_at: now,
  });
  await emitWebhookEvents(tx, [
    preferencesChangedEmission(row, { source: change.source, changes, created_at: now }),
  ]);
  return { changed: true as const, entryId: entry.id };
}

/** PUT /v1/recipients/{external_id}/preferences with a backend key (ledger source `api`). */
export async function putPreferences(
  { prisma, now }: { prisma: RootDatabase; now: () => Date },
  principal: Principal,
  externalId: string,
  input: PreferencesInput,
) {
  assertMayWritePeople(principal);
  const recipient = await findRecipientByExternalId(prisma, externalId);
  if (!recipient) throw new AppError("not_found", `no recipient '${externalId}'`);
  if (input.unsubscribed_categories) {
    const categories = await findCategories(prisma, input.unsubscribed_categories);
    const issues: ValidationIssue[] = [];
    input.unsubscribed_categories.forEach((key, i) => {
      const category = categories.find((c) => c.key === key);
      if (!category)
        issues.push({
          loc: ["body", "unsubscribed_categories", i],
          msg: `no category '${key}'`,
          type: "value_error",
        });
      else if (!category.allow_unsubscribe) {
        issues.push({
          loc: ["body", "unsubscribed_categories", i],
          msg: `category '${key}' does not allow unsubscribing`,
          type: "value_error",
        });
      }
    });
    if (issues.length > 0) throw validationError(issues);
  }
  await $transaction(prisma, (tx) =>
    changePreferences(
      tx,
      recipient.id,
      input,
      { source: "api", provenance: { method: "api", api_key: principal.keyId } },
      now(),
    ),
  );
  const row = await getRecipientById(prisma, recipient.id);
  return {
    unsubscribed_categories: row.unsubscribed_categories,
    muted_channels: row.muted_channels,
    quiet_hours: (row.quiet_hours as { start: string; end: string } | null) ?? null,
  };
}
