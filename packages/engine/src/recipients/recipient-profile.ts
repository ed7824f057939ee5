import { isValidTimeZone, newId, type ValidationIssue } from "@svc/core";
import { Prisma } from "@svc/store";
import { validationError } from "../shared/validation";

/** Profile fields of PUT /v1/recipients/{external_id} and of inline event profiles (SPEC 2.3, 2.9). */
export interface RecipientProfileInput {
  locale?: string | null;
  timezone?: string | null;
  region?: string | null;
  attributes?: Record<string, unknown>;
  addresses?: { channel: string; value: string; enabled?: boolean }[];
}

export function checkProfile(input: RecipientProfileInput, locPrefix: (string | number)[]): void {
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
  }
  if (issues.length > 0) throw validationError(issues);
}

/**
 * Writes a profile inside a transaction: given fields replace stored ones, an `addresses` list
 * replaces the person's addresses. Returns whether the row was created.
 */
export async function writeProfile(
  tx: Prisma.TransactionClient,
  externalId: string,
  input: RecipientProfileInput,
  now: Date,
): Promise<{ recipientId: string; created: boolean }> {
  const fields: Record<string, unknown> = {};
  for (const field of ["locale", "timezone", "region"] as const)
    if (input[field] !== undefined) fields[field] = input[field];
  if (input.attributes !== undefined) fields.attributes = input.attributes as Prisma.InputJsonValue;
  const existing = await tx.recipient.findUnique({
    where: { external_id: externalId },
    select: { id: true },
  });
  const recipientId = existing?.id ?? newId("recipient");
  if (existing) {
    if (Object.keys(fields).length > 0 || input.addresses) {
      await tx.recipient.update({ where: { id: recipientId }, data: { ...fields, updated_at: now } });
    }
  } else {
    await tx.recipient.create({
      data: { id: recipientId, external_id: externalId, ...fields, created_at: now, updated_at: now },
    });
  }
  if (input.addresses) {
    await tx.address.deleteMany({ where: { recipient_id: recipientId } });
    if (input.addresses.length > 0) {
      await tx.address.createMany({
        data: input.addresses.map((a, i) => ({
          recipient_id: recipientId,
          channel: a.channel,
          value: a.value,
          enabled: a.enabled ?? true,
          // keeps the given order readable back (list order is by created_at)
          created_at: new Date(now.getTime() + i),
          updated_at: now,
        })),
      });
    }
  }
  return { recipientId, created: !existing };
}
