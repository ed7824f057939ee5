import { prismaOf, transactionOf, type Database, type Transaction } from "../../transaction";

// `sms_suppressions`: SHA-256 (hex) of text numbers whose last keyword was a STOP. It outlives the
// people who had the number, so a profile written later with it starts muted for texts until a
// START (docs/texting.md "STOP and START", docs/erasure.md "What is kept").

/** Text numbers kept muted after their person is erased, as SHA-256 hashes; existing ones stay. */
export async function insertSmsSuppressions(
  tx: Transaction,
  phoneHashes: string[],
  keyword: string,
  now: Date,
): Promise<void> {
  await transactionOf(tx).smsSuppression.createMany({
    data: phoneHashes.map((phone_sha256) => ({ phone_sha256, keyword, created_at: now })),
    skipDuplicates: true,
  });
}

/** A STOP: the number is suppressed, with this keyword (a newer STOP replaces the keyword). */
export async function saveSmsSuppression(
  tx: Transaction,
  phoneHash: string,
  keyword: string,
  now: Date,
): Promise<void> {
  await transactionOf(tx).smsSuppression.upsert({
    where: { phone_sha256: phoneHash },
    create: { phone_sha256: phoneHash, keyword, created_at: now },
    update: { keyword, created_at: now },
  });
}

/** A START: the number is no longer suppressed. */
export async function deleteSmsSuppression(tx: Transaction, phoneHash: string): Promise<void> {
  await transactionOf(tx).smsSuppression.deleteMany({ where: { phone_sha256: phoneHash } });
}

/** Those of `phoneHashes` that are suppressed, with the STOP keyword that did it. */
export function findSmsSuppressions(
  db: Database,
  phoneHashes: readonly string[],
): Promise<{ phone_sha256: string; keyword: string }[]> {
  return prismaOf(db).smsSuppression.findMany({
    where: { phone_sha256: { in: [...phoneHashes] } },
    select: { phone_sha256: true, keyword: true },
  });
}
