import type { Pool } from "pg";
import { newId } from "@svc/core";

export interface BenchRecipient {
  id: string;
  external: string;
}

/** `count` people `bench-0` … with fresh ids. */
export function benchRecipients(count: number): BenchRecipient[] {
  return Array.from({ length: count }, (_, i) => ({ id: newId("recipient"), external: `bench-${i}` }));
}

/** Inserts the people with an address `device-<id>` on each of `channels`, 20,000 a statement. */
export async function insertRecipients(
  pool: Pool,
  recipients: readonly BenchRecipient[],
  channels: readonly string[] = ["push"],
): Promise<void> {
  for (let i = 0; i < recipients.length; i += 20_000) {
    const slice = recipients.slice(i, i + 20_000);
    await pool.query(
      `INSERT INTO recipients (id, external_id, updated_at) SELECT *, now() FROM unnest($1::text[], $2::text[])`,
      [slice.map((r) => r.id), slice.map((r) => r.external)],
    );
    await pool.query(
      `INSERT INTO addresses (recipient_id, channel, value)
       SELECT r, c, 'device-' || r FROM unnest($1::text[]) AS r, unnest($2::text[]) AS c`,
      [slice.map((r) => r.id), channels],
    );
  }
}
