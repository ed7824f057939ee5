import type { TransactionClient } from "../../transaction";

/** Text numbers kept muted after their person is erased, as SHA-256 hashes; existing ones stay. */
export async function insertSmsSuppressions(
  tx: TransactionClient,
  phoneHashes: string[],
  keyword: string,
  now: Date,
): Promise<void> {
  await tx.smsSuppression.createMany({
    data: phoneHashes.map((phone_sha256) => ({ phone_sha256, keyword, created_at: now })),
    skipDuplicates: true,
  });
}
