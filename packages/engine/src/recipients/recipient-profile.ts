import { isValidTimeZone, newId, type ValidationIssue } from "@svc/core";
import {
  findRecipientId,
  insertRecipient,
  replaceAddresses,
  updateRecipientProfile,
  type RecipientProfileFields,
  type Transaction,
} from "@svc/store";
import { lockTextNumbers, muteSuppressedNumbers, textNumbersOf } from "./suppressed-numbers";
import { validationError } from "../shared/validation";
import { addressIssues, type AddressConfig } from "./address-check";

/** Profile fields of PUT /v1/recipients/{external_id} and inline event profiles (docs/preferences.md). */
export interface RecipientProfileInput {
  locale?: string | null;
  timezone?: string | null;
  region?: string | null;
  attributes?: Record<string, unknown>;
  addresses?: { channel: string; value: string; enabled?: boolean }[];
}

export function checkProfile(
  input: RecipientProfileInput,
  locPrefix: (string | number)[],
  config: AddressConfig,
): void {
  const issues: ValidationIssue[] = [];
  if (input.timezone != null && !isValidTimeZone(input.timezone)) {
    issues.push({
      loc: [...locPrefix, "timezone"],
      msg: `unknown IANA time zone '${input.timezone}'`,
      type: "value_error",
    });
  }
  if (input.addresses) {
    const seen = new Set<string>();
    input.addresses.forEach((a, i) => {
      const id = `${a.channel}\u0000${a.value}`;
      if (seen.has(id))
        issues.push({ loc: [...locPrefix, "addresses", i], msg: "duplicate address", type: "value_error" });
      seen.add(id);
    });
    issues.push(...addressIssues(config, input.addresses, (i) => [...locPrefix, "addresses", i, "value"]));
  }
  if (issues.length > 0) throw validationError(issues);
}

/**
 * Writes a profile inside a transaction: given fields replace stored ones, an `addresses` list
 * replaces the person's addresses. Returns whether the row was created. A text number (on one of
 * `textChannels`, compliance.sms_channels) that a STOP put on the suppression list mutes the
 * person's texts (docs/texting.md "STOP and START").
 */
export async function writeProfile(
  tx: Transaction,
  externalId: string,
  input: RecipientProfileInput,
  now: Date,
  textChannels: readonly string[],
): Promise<{ recipientId: string; created: boolean }> {
  const numbers = textNumbersOf(input.addresses ?? [], textChannels);
  await lockTextNumbers(tx, numbers);
  const fields: RecipientProfileFields = {};
  for (const field of ["locale", "timezone", "region"] as const)
    if (input[field] !== undefined) fields[field] = input[field];
  if (input.attributes !== undefined) fields.attributes = input.attributes;
  const existingId = await findRecipientId(tx, externalId);
  const recipientId = existingId ?? newId("recipient");
  if (existingId) {
    if (Object.keys(fields).length > 0 || input.addresses) {
      await updateRecipientProfile(tx, recipientId, fields, now);
    }
  } else {
    await insertRecipient(tx, { id: recipientId, external_id: externalId, profile: fields, now });
  }
  if (input.addresses) {
    const addresses = input.addresses.map((a) => ({ ...a, enabled: a.enabled ?? true }));
    await replaceAddresses(tx, recipientId, addresses, now);
    await muteSuppressedNumbers(tx, recipientId, numbers, textChannels, now);
  }
  return { recipientId, created: !existingId };
}
