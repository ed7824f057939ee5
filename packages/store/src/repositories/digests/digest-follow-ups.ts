import type { DigestRow } from "../../rows";
import { prismaOf, type Database } from "../../transaction";

/** Of these digests, the ones still open, with when they close (a retried ingest re-announces them). */
export function openDigestsAmong(
  db: Database,
  ids: readonly string[],
): Promise<Pick<DigestRow, "id" | "closes_at">[]> {
  return prismaOf(db).digest.findMany({
    where: { id: { in: [...ids] }, status: "open" },
    select: { id: true, closes_at: true },
  });
}
