import { AppError, newId, sha256Hex, type Principal, type ValidationIssue } from "@svc/core";
import {
  $transaction,
  addConsentRecord,
  findCategoryKeys,
  findRecipientByExternalId,
  getRecipientById,
  insertLedgerEntry,
  saveConsent,
  type RootDatabase,
} from "@svc/store";
import { emitWebhookEvents, preferencesChangedEmission } from "../outbox/emit";
import { lockPerson } from "../shared/lock-person";
import { changePreferences } from "../recipients/preferences";
import { validationError } from "../shared/validation";
import { serializeLedgerEntry, type LedgerEntryView } from "./serialize-ledger-entry";

/** POST /v1/recipients/{external_id}/consent (docs/preferences.md, "Opt-in records"). */
export interface ConsentInput {
  categories: string[];
  disclosure: string;
  disclosure_version?: string;
  method: string;
  source: string;
  ip?: string;
  user_agent?: string;
  expires_at?: string;
}

async function checkInput(prisma: RootDatabase, input: ConsentInput, now: Date): Promise<void> {
  const issues: ValidationIssue[] = [];
  const known = await findCategoryKeys(prisma, input.categories);
  input.categories.forEach((key, i) => {
    if (!known.includes(key))
      issues.push({ loc: ["body", "categories", i], msg: `no category '${key}'`, type: "value_error" });
  });
  if (input.expires_at !== undefined && new Date(input.expires_at).getTime() <= now.getTime()) {
    issues.push({ loc: ["body", "expires_at"], msg: "must be in the future", type: "value_error" });
  }
  if (issues.length > 0) throw validationError(issues);
}

/**
 * Subscribes the person to the categories and writes one ledger entry with the disclosure, its
 * SHA-256 and the provenance, even when nothing changed (an opt-in is evidence, not a diff). The
 * `consents` rows carry the expiry that composition checks (`consent_expired`).
 */
export async function recordConsent(
  deps: { prisma: RootDatabase; now: () => Date },
  principal: Principal,
  externalId: string,
  input: ConsentInput,
): Promise<LedgerEntryView> {
  // An agent key can never record consent (docs/preferences.md, "Agent keys").
  if (principal.agentKey) throw new AppError("forbidden", "agent keys may not record consent");
  const now = deps.now();
  await checkInput(deps.prisma, input, now);
  const categories = [...new Set(input.categories)];
  const expiresAt = input.expires_at === undefined ? null : new Date(input.expires_at);
  const provenance = {
    method: input.method,
    consent_source: input.source,
    ip: input.ip ?? null,
    user_agent: input.user_agent ?? null,
    api_key: principal.keyId,
  };
  const record = {
    categories,
    disclosure: input.disclosure,
    disclosure_sha256: sha256Hex(input.disclosure),
    disclosure_version: input.disclosure_version ?? null,
    expires_at: expiresAt,
  };
  const entry = await $transaction(deps.prisma, async (tx) => {
    const person = await findRecipientByExternalId(tx, externalId);
    if (!person) throw new AppError("not_found", `no recipient '${externalId}'`);
    await lockPerson(tx, person);
    const current = await getRecipientById(tx, person.id);
    const subscribed = current.unsubscribed_categories.filter((key) => !categories.includes(key));
    const change = await changePreferences(
      tx,
      person.id,
      { unsubscribed_categories: subscribed },
      { source: "api", provenance },
      now,
    );
    // One entry per opt-in: the change's own entry gains the record, or a record-only entry is written.
    const row = change.changed
      ? await addConsentRecord(tx, change.entryId, record)
      : await insertLedgerEntry(tx, {
          id: newId("ledger"),
          recipient_id: person.id,
          source: "api",
          changes: {},
          provenance,
          record,
          created_at: now,
        });
    // A record-only entry is a ledger entry too: backends hear of it (a change's entry was told).
    if (!change.changed)
      await emitWebhookEvents(tx, [
        preferencesChangedEmission(person, { source: "api", changes: {}, created_at: now }),
      ]);
    for (const category of categories) {
      await saveConsent(tx, {
        recipient_id: person.id,
        category,
        entry_id: row.id,
        expires_at: expiresAt,
        recorded_at: now,
      });
    }
    return row;
  });
  return serializeLedgerEntry(entry);
}
