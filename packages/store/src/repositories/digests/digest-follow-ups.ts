import type { DigestRow } from "../../rows";
import type { PrismaClientOrTransaction } from "../../transaction";

/** Of these digests, the ones still open, with when they close (a retried ingest re-announces them). */
export function openDigestsAmong(
  db: PrismaClientOrTransaction,
  ids: readonly string[],
): Promise<Pick<DigestRow, "id" | "closes_at">[]> {
  return db.digest.findMany({
    where: { id: { in: [...ids] }, status: "open" },
    select: { id: true, closes_at: true },
  });
}
