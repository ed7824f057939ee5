-- Partial indexes on messages (docs/decisions.md "Indexes of messages"). Four indexes keep only
-- the rows that have what they look up: an agent, an event, a broadcast or a digest. A row
-- without one costs no write to that index, and a backend event's message has none of an agent, a
-- broadcast or a digest. The two status indexes stay full: Prisma binds an enum as a cast the
-- planner cannot match with a predicate on status.
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

-- CreateIndex
CREATE INDEX "messages_agent_key_status_idx" ON "messages"("agent_key", "status") WHERE (agent_key IS NOT NULL);

-- CreateIndex
CREATE INDEX "messages_event_id_idx" ON "messages"("event_id") WHERE (event_id IS NOT NULL);

-- CreateIndex
CREATE INDEX "messages_broadcast_id_status_idx" ON "messages"("broadcast_id", "status") WHERE (broadcast_id IS NOT NULL);

-- CreateIndex
CREATE INDEX "messages_digest_id_idx" ON "messages"("digest_id") WHERE (digest_id IS NOT NULL);

