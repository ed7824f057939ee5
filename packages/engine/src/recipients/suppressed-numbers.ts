import { sha256Hex, smsReplyEffect, toE164 } from "@svc/core";
import { findSmsSuppressions, getRecipientById, lockPhoneNumbers, type Transaction } from "@svc/store";
import { changePreferences } from "./preferences";

// A STOP outlives the people who had the number (docs/texting.md "STOP and START"): the number
// stays on the suppression list (its SHA-256) until a START, and a profile written with it later,
// a re-created one after erasure included, starts with its text channels muted.
//
// Race-free with replies: a profile write locks its text numbers before writing them, a reply
// locks its number before reading who has it, so either the reply sees the new address or the
// write sees the reply's suppression.

/**
 * For transactions that take number locks: a burst of replies and profile writes for one number
 * queues up behind the lock (holding pooled connections), so waiting for a connection gets more
 * room than Prisma's 2 s before it gives up.
 */
export const NUMBER_LOCK_TRANSACTION = { maxWait: 10_000, timeout: 15_000 };

/** E.164 forms of the addresses on text channels (`compliance.sms_channels`), each once. */
export function textNumbersOf(
  addresses: readonly { channel: string; value: string }[],
  textChannels: readonly string[],
): string[] {
  const numbers = addresses
    .filter((a) => textChannels.includes(a.channel))
    .map((a) => toE164(a.value))
    .filter((n): n is string => n !== null);
  return [...new Set(numbers)];
}

/** Call before writing addresses that hold `numbers` (the lock lasts until the transaction ends). */
export function lockTextNumbers(tx: Transaction, numbers: readonly string[]): Promise<void> {
  return numbers.length === 0 ? Promise.resolve() : lockPhoneNumbers(tx, numbers);
}

/**
 * After the write: when one of the person's new `numbers` is suppressed, their text channels are
 * muted as the STOP would have muted them (categories are left alone). Ledger source
 * `sms_keyword`, provenance `{method: "suppression_list", keyword, number}`.
 */
export async function muteSuppressedNumbers(
  tx: Transaction,
  recipientId: string,
  numbers: readonly string[],
  textChannels: readonly string[],
  now: Date,
): Promise<void> {
  if (numbers.length === 0 || textChannels.length === 0) return;
  const hashes = new Map(numbers.map((n) => [sha256Hex(n), n]));
  const [suppressed] = await findSmsSuppressions(tx, [...hashes.keys()]);
  if (!suppressed) return;
  const person = await getRecipientById(tx, recipientId);
  const change = smsReplyEffect({
    action: "stop",
    textChannels,
    optionalCategories: [], // texts only: the person's categories are theirs to choose again
    mutedChannels: person.muted_channels,
    unsubscribedCategories: person.unsubscribed_categories,
  });
  if (!change) return;
  await changePreferences(
    tx,
    recipientId,
    change,
    {
      source: "sms_keyword",
      provenance: {
        method: "suppression_list",
        keyword: suppressed.keyword,
        number: hashes.get(suppressed.phone_sha256),
      },
    },
    now,
  );
}
