import { prismaOf, transactionOf, type Database, type Transaction } from "../../transaction";

// Text replies received (`inbound_replies`): one row per provider message, so a repeated webhook or
// API call is recognised and changes nothing (docs/texting.md "Repeats").

export interface InboundReplyRow {
  id: string;
  provider: string;
  provider_message_id: string;
  from: string;
  body: string;
  keyword: string | null;
  action: string | null;
  api_key_id: string | null;
  created_at: Date;
}

/**
 * Records the reply; false when (provider, provider_message_id) was recorded already (a repeat).
 * A concurrent insert of the same id waits for the first one's transaction and then loses.
 */
export async function insertInboundReply(tx: Transaction, reply: InboundReplyRow): Promise<boolean> {
  const { count } = await transactionOf(tx).inboundReply.createMany({ data: [reply], skipDuplicates: true });
  return count === 1;
}

export function findInboundReply(
  db: Database,
  provider: string,
  providerMessageId: string,
): Promise<InboundReplyRow | null> {
  return prismaOf(db).inboundReply.findUnique({
    where: { provider_provider_message_id: { provider, provider_message_id: providerMessageId } },
  });
}
