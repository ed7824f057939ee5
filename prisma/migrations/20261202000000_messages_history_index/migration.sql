-- One index for a person's message history instead of three (docs/benchmarks.md "Flat cost as
-- data grows", docs/decisions.md). The policy reads caps, cooldowns, agent budgets and the texting
-- cap in one statement (a person's messages from a time on, any of category, rule or agent), and
-- at 1,000,000 messages Postgres served it from whichever of the three indexes it liked, using
-- only their recipient_id and send_at. Two fewer indexes to write with every message.
-- (No semicolon in these comments: Prisma's schema engine splits the script on them.)

-- DropIndex
DROP INDEX "messages_recipient_id_category_send_at_idx";

-- DropIndex
DROP INDEX "messages_recipient_id_rule_send_at_idx";

-- DropIndex
DROP INDEX "messages_recipient_id_agent_key_send_at_idx";

-- CreateIndex
CREATE INDEX "messages_recipient_id_send_at_idx" ON "messages"("recipient_id", "send_at");
