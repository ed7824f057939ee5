-- Partial indexes on messages (docs/decisions.md "Indexes of messages"). Each index keeps only
-- the rows its queries can ask for: unfinished rows for the delivery sweeps and held messages,
-- `sending` rows for expired leases and the screening wait, and rows that have an agent, an event,
-- a broadcast or a digest for the lookups by those. A row outside an index costs no write to it,
-- and a sent message leaves the two status indexes, so they stay small however many messages the
-- table holds. The lease index is on lease_until alone (its status is fixed by the predicate).
-- Rebuilding them locks writes to messages while each index is built (seconds per million rows).
-- (No semicolon in these comments: Prisma's schema engine splits the script on them.)
-- DropIndex
DROP INDEX "messages_agent_key_status_idx";

-- DropIndex
DROP INDEX "messages_broadcast_id_status_idx";

-- DropIndex
DROP INDEX "messages_digest_id_idx";

-- DropIndex
DROP INDEX "messages_event_id_idx";

-- DropIndex
DROP INDEX "messages_status_lease_until_idx";

-- DropIndex
DROP INDEX "messages_status_send_at_idx";

-- CreateIndex
CREATE INDEX "messages_status_send_at_idx" ON "messages"("status", "send_at") WHERE (status = ANY (ARRAY['queued'::"MessageStatus", 'sending'::"MessageStatus", 'pending_approval'::"MessageStatus"]));

-- CreateIndex
CREATE INDEX "messages_lease_until_idx" ON "messages"("lease_until") WHERE (status = 'sending');

-- CreateIndex
CREATE INDEX "messages_agent_key_status_idx" ON "messages"("agent_key", "status") WHERE (agent_key IS NOT NULL);

-- CreateIndex
CREATE INDEX "messages_event_id_idx" ON "messages"("event_id") WHERE (event_id IS NOT NULL);

-- CreateIndex
CREATE INDEX "messages_broadcast_id_status_idx" ON "messages"("broadcast_id", "status") WHERE (broadcast_id IS NOT NULL);

-- CreateIndex
CREATE INDEX "messages_digest_id_idx" ON "messages"("digest_id") WHERE (digest_id IS NOT NULL);

