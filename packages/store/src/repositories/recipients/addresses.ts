import type { AddressRow } from "../../rows";
import { prismaOf, transactionOf, type Database, type Transaction } from "../../transaction";

export interface AddressKey {
  recipient_id: string;
  channel: string;
  value: string;
}

const byKey = (key: AddressKey) => ({ recipient_id_channel_value: key });

export async function findAddress(db: Database, key: AddressKey): Promise<AddressRow | null> {
  return prismaOf(db).address.findUnique({ where: byKey(key) });
}

/** The address with `enabled`: inserted, or its `enabled` changed. */
export async function saveAddress(
  db: Database,
  key: AddressKey,
  enabled: boolean,
  now: Date,
): Promise<AddressRow> {
  return prismaOf(db).address.upsert({
    where: byKey(key),
    create: { ...key, enabled, created_at: now, updated_at: now },
    update: { enabled, updated_at: now },
  });
}

/** True when the address existed. */
export async function deleteAddress(db: Database, key: AddressKey): Promise<boolean> {
  const { count } = await prismaOf(db).address.deleteMany({ where: key });
  return count > 0;
}

/**
 * The person's addresses become exactly `addresses`. Each is created a millisecond after the
 * previous one, so reading them back by `created_at` keeps the given order.
 */
export async function replaceAddresses(
  tx: Transaction,
  recipientId: string,
  addresses: { channel: string; value: string; enabled: boolean }[],
  now: Date,
): Promise<void> {
  await transactionOf(tx).address.deleteMany({ where: { recipient_id: recipientId } });
  if (addresses.length === 0) return;
  await transactionOf(tx).address.createMany({
    data: addresses.map((a, i) => ({
      recipient_id: recipientId,
      channel: a.channel,
      value: a.value,
      enabled: a.enabled,
      created_at: new Date(now.getTime() + i),
      updated_at: now,
    })),
  });
}
