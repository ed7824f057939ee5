-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "Importance" AS ENUM ('low', 'normal', 'high', 'critical');

-- CreateEnum
CREATE TYPE "MessageStatus" AS ENUM ('queued', 'sending', 'pending_approval', 'sent', 'delivered', 'failed', 'suppressed', 'cancelled');

-- CreateEnum
CREATE TYPE "EventStatus" AS ENUM ('pending', 'processed', 'failed');

-- CreateEnum
CREATE TYPE "EventSource" AS ENUM ('api', 'svc');

-- CreateEnum
CREATE TYPE "DigestStatus" AS ENUM ('open', 'sent', 'cancelled');

-- CreateEnum
CREATE TYPE "ApprovalStatus" AS ENUM ('pending', 'approved', 'rejected', 'expired');

-- CreateEnum
CREATE TYPE "BroadcastStatus" AS ENUM ('draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled', 'failed');

-- CreateEnum
CREATE TYPE "LedgerSource" AS ENUM ('api', 'self_service', 'one_click', 'sms_keyword');

-- CreateEnum
CREATE TYPE "EngagementType" AS ENUM ('delivered', 'opened', 'clicked', 'converted');

-- CreateEnum
CREATE TYPE "CallbackStatus" AS ENUM ('pending', 'delivered', 'failed');

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "agent_key" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agents" (
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "categories" JSONB,
    "frequency_caps" JSONB NOT NULL DEFAULT '[{"period": 86400, "limit": 5}]',
    "max_importance" "Importance" NOT NULL DEFAULT 'high',
    "approval" JSONB,
    "approval_ttl_seconds" INTEGER NOT NULL DEFAULT 86400,
    "reviewers" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "categories" (
    "key" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "frequency_caps" JSONB NOT NULL DEFAULT '[]',
    "respect_quiet_hours" BOOLEAN NOT NULL DEFAULT true,
    "allow_unsubscribe" BOOLEAN NOT NULL DEFAULT true,
    "marketing" BOOLEAN NOT NULL DEFAULT false,
    "fatigue" JSONB,
    "builtin" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "categories_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "templates" (
    "key" TEXT NOT NULL,
    "default_locale" TEXT NOT NULL DEFAULT 'en',
    "locales" JSONB NOT NULL,
    "ai_attributes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "templates_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "rules" (
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "event" TEXT NOT NULL,
    "template" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "channels" TEXT[],
    "importance" "Importance" NOT NULL DEFAULT 'normal',
    "digest" JSONB,
    "condition" JSONB,
    "delay_seconds" INTEGER,
    "cooldown_seconds" INTEGER,
    "expires_in_seconds" INTEGER,
    "rollout_percent" INTEGER NOT NULL DEFAULT 100,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "stop_processing" BOOLEAN NOT NULL DEFAULT false,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rules_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "recipients" (
    "id" TEXT NOT NULL,
    "external_id" TEXT NOT NULL,
    "locale" TEXT,
    "timezone" TEXT,
    "region" TEXT,
    "attributes" JSONB NOT NULL DEFAULT '{}',
    "quiet_hours" JSONB,
    "unsubscribed_categories" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "muted_channels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recipients_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "addresses" (
    "recipient_id" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "addresses_pkey" PRIMARY KEY ("recipient_id","channel","value")
);

-- CreateTable
CREATE TABLE "preference_tokens" (
    "recipient_id" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "preference_tokens_pkey" PRIMARY KEY ("recipient_id")
);

-- CreateTable
CREATE TABLE "consent_entries" (
    "id" TEXT NOT NULL,
    "recipient_id" TEXT NOT NULL,
    "source" "LedgerSource" NOT NULL,
    "changes" JSONB NOT NULL,
    "provenance" JSONB NOT NULL,
    "categories" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "disclosure" TEXT,
    "disclosure_sha256" TEXT,
    "disclosure_version" TEXT,
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "consent_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "consents" (
    "recipient_id" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "entry_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "recorded_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "consents_pkey" PRIMARY KEY ("recipient_id","category")
);

-- CreateTable
CREATE TABLE "sms_suppressions" (
    "phone_sha256" TEXT NOT NULL,
    "keyword" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sms_suppressions_pkey" PRIMARY KEY ("phone_sha256")
);

-- CreateTable
CREATE TABLE "fatigue_states" (
    "recipient_id" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "sent_since_engagement" INTEGER NOT NULL DEFAULT 0,
    "paused_until" TIMESTAMPTZ(3),
    "probe_message_id" TEXT,
    "probe_sent_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "fatigue_states_pkey" PRIMARY KEY ("recipient_id","category")
);

-- CreateTable
CREATE TABLE "events" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "source" "EventSource" NOT NULL DEFAULT 'api',
    "sender" TEXT NOT NULL,
    "agent_key" TEXT,
    "api_key_id" TEXT,
    "idempotency_key" TEXT,
    "request_hash" TEXT,
    "idempotency_expires_at" TIMESTAMPTZ(3),
    "recipient_id" TEXT,
    "recipient_external_id" TEXT NOT NULL,
    "recipient_profile" JSONB,
    "data" JSONB NOT NULL DEFAULT '{}',
    "status" "EventStatus" NOT NULL DEFAULT 'pending',
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_outcomes" (
    "event_id" TEXT NOT NULL,
    "rule_key" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "matched" BOOLEAN NOT NULL,
    "reason" TEXT,
    "status" "MessageStatus",
    "message_id" TEXT,
    "digest_id" TEXT,

    CONSTRAINT "event_outcomes_pkey" PRIMARY KEY ("event_id","rule_key")
);

-- CreateTable
CREATE TABLE "messages" (
    "id" TEXT NOT NULL,
    "status" "MessageStatus" NOT NULL,
    "status_reason" TEXT,
    "recipient_id" TEXT NOT NULL,
    "recipient_external_id" TEXT NOT NULL,
    "sender" TEXT NOT NULL,
    "agent_key" TEXT,
    "api_key_id" TEXT,
    "category" TEXT NOT NULL,
    "template" TEXT,
    "rule" TEXT,
    "event_id" TEXT,
    "broadcast_id" TEXT,
    "digest_id" TEXT,
    "importance" "Importance" NOT NULL,
    "claimed_importance" "Importance" NOT NULL,
    "channels" TEXT[],
    "channel" TEXT,
    "content" JSONB,
    "data" JSONB NOT NULL DEFAULT '{}',
    "idempotency_key" TEXT,
    "request_hash" TEXT,
    "idempotency_expires_at" TIMESTAMPTZ(3),
    "dedup_key" TEXT,
    "send_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "approval_expires_at" TIMESTAMPTZ(3),
    "reviewed_by" TEXT,
    "reviewed_by_key_id" TEXT,
    "reviewed_at" TIMESTAMPTZ(3),
    "screening" JSONB,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "lease_until" TIMESTAMPTZ(3),
    "delivery_attempts" INTEGER NOT NULL DEFAULT 0,
    "link_nonce" TEXT NOT NULL,
    "unsubscribe_token_hash" TEXT,
    "tracking_token_hash" TEXT,
    "sent_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "opened_at" TIMESTAMPTZ(3),
    "clicked_at" TIMESTAMPTZ(3),
    "converted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delivery_attempts" (
    "id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "address" TEXT,
    "ok" BOOLEAN NOT NULL,
    "retryable" BOOLEAN NOT NULL DEFAULT false,
    "error" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "engagements" (
    "message_id" TEXT NOT NULL,
    "type" "EngagementType" NOT NULL,
    "source" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "engagements_pkey" PRIMARY KEY ("message_id","type")
);

-- CreateTable
CREATE TABLE "digests" (
    "id" TEXT NOT NULL,
    "rule_key" TEXT NOT NULL,
    "recipient_id" TEXT NOT NULL,
    "recipient_external_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "open_key" TEXT,
    "status" "DigestStatus" NOT NULL DEFAULT 'open',
    "closes_at" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,
    "status_reason" TEXT,
    "message_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sent_at" TIMESTAMPTZ(3),

    CONSTRAINT "digests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "digest_items" (
    "digest_id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "data" JSONB NOT NULL,
    "event_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "digest_items_pkey" PRIMARY KEY ("digest_id","event_id")
);

-- CreateTable
CREATE TABLE "broadcasts" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "template" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "channels" TEXT[],
    "importance" "Importance" NOT NULL DEFAULT 'normal',
    "data" JSONB NOT NULL DEFAULT '{}',
    "audience" JSONB NOT NULL,
    "send_at" TIMESTAMPTZ(3),
    "rate_per_second" INTEGER,
    "status" "BroadcastStatus" NOT NULL DEFAULT 'draft',
    "status_reason" TEXT,
    "total" INTEGER,
    "processed" INTEGER NOT NULL DEFAULT 0,
    "cursor" TEXT,
    "created_by_key_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "broadcasts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "approval_requests" (
    "id" TEXT NOT NULL,
    "sender" TEXT NOT NULL,
    "agent_key" TEXT,
    "api_key_id" TEXT,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL DEFAULT '',
    "reviewers" TEXT[],
    "importance" "Importance" NOT NULL DEFAULT 'high',
    "status" "ApprovalStatus" NOT NULL DEFAULT 'pending',
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "decided_by" TEXT,
    "decided_by_key_id" TEXT,
    "comment" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "approval_requests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "review_links" (
    "id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "message_id" TEXT,
    "approval_id" TEXT,
    "reviewer" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "review_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "callback_deliveries" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "subject_id" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "status" "CallbackStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "callback_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inbound_replies" (
    "id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "provider_message_id" TEXT NOT NULL,
    "from" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "keyword" TEXT,
    "action" TEXT,
    "api_key_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inbound_replies_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_agent_key_idx" ON "api_keys"("agent_key");

-- CreateIndex
CREATE INDEX "api_keys_created_at_idx" ON "api_keys"("created_at");

-- CreateIndex
CREATE INDEX "agents_created_at_idx" ON "agents"("created_at");

-- CreateIndex
CREATE INDEX "categories_created_at_idx" ON "categories"("created_at");

-- CreateIndex
CREATE INDEX "templates_created_at_idx" ON "templates"("created_at");

-- CreateIndex
CREATE INDEX "rules_enabled_priority_idx" ON "rules"("enabled", "priority");

-- CreateIndex
CREATE INDEX "rules_created_at_idx" ON "rules"("created_at");

-- CreateIndex
CREATE UNIQUE INDEX "recipients_external_id_key" ON "recipients"("external_id");

-- CreateIndex
CREATE INDEX "recipients_created_at_idx" ON "recipients"("created_at");

-- CreateIndex
CREATE INDEX "addresses_channel_value_idx" ON "addresses"("channel", "value");

-- CreateIndex
CREATE UNIQUE INDEX "preference_tokens_token_hash_key" ON "preference_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "consent_entries_recipient_id_created_at_idx" ON "consent_entries"("recipient_id", "created_at");

-- CreateIndex
CREATE INDEX "events_status_created_at_idx" ON "events"("status", "created_at");

-- CreateIndex
CREATE INDEX "events_recipient_id_created_at_idx" ON "events"("recipient_id", "created_at");

-- CreateIndex
CREATE INDEX "events_agent_key_created_at_idx" ON "events"("agent_key", "created_at");

-- CreateIndex
CREATE INDEX "events_created_at_idx" ON "events"("created_at");

-- CreateIndex
CREATE UNIQUE INDEX "events_sender_idempotency_key_key" ON "events"("sender", "idempotency_key");

-- CreateIndex
CREATE UNIQUE INDEX "messages_dedup_key_key" ON "messages"("dedup_key");

-- CreateIndex
CREATE UNIQUE INDEX "messages_unsubscribe_token_hash_key" ON "messages"("unsubscribe_token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "messages_tracking_token_hash_key" ON "messages"("tracking_token_hash");

-- CreateIndex
CREATE INDEX "messages_recipient_id_category_send_at_idx" ON "messages"("recipient_id", "category", "send_at");

-- CreateIndex
CREATE INDEX "messages_recipient_id_rule_send_at_idx" ON "messages"("recipient_id", "rule", "send_at");

-- CreateIndex
CREATE INDEX "messages_recipient_id_agent_key_send_at_idx" ON "messages"("recipient_id", "agent_key", "send_at");

-- CreateIndex
CREATE INDEX "messages_status_send_at_idx" ON "messages"("status", "send_at");

-- CreateIndex
CREATE INDEX "messages_status_lease_until_idx" ON "messages"("status", "lease_until");

-- CreateIndex
CREATE INDEX "messages_agent_key_status_idx" ON "messages"("agent_key", "status");

-- CreateIndex
CREATE INDEX "messages_event_id_idx" ON "messages"("event_id");

-- CreateIndex
CREATE INDEX "messages_broadcast_id_status_idx" ON "messages"("broadcast_id", "status");

-- CreateIndex
CREATE INDEX "messages_digest_id_idx" ON "messages"("digest_id");

-- CreateIndex
CREATE INDEX "messages_created_at_idx" ON "messages"("created_at");

-- CreateIndex
CREATE INDEX "messages_recipient_id_created_at_idx" ON "messages"("recipient_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "messages_sender_idempotency_key_key" ON "messages"("sender", "idempotency_key");

-- CreateIndex
CREATE INDEX "delivery_attempts_message_id_at_idx" ON "delivery_attempts"("message_id", "at");

-- CreateIndex
CREATE UNIQUE INDEX "digests_open_key_key" ON "digests"("open_key");

-- CreateIndex
CREATE INDEX "digests_status_closes_at_idx" ON "digests"("status", "closes_at");

-- CreateIndex
CREATE INDEX "digests_recipient_id_created_at_idx" ON "digests"("recipient_id", "created_at");

-- CreateIndex
CREATE INDEX "digests_rule_key_status_idx" ON "digests"("rule_key", "status");

-- CreateIndex
CREATE INDEX "digests_created_at_idx" ON "digests"("created_at");

-- CreateIndex
CREATE INDEX "digest_items_digest_id_position_idx" ON "digest_items"("digest_id", "position");

-- CreateIndex
CREATE INDEX "broadcasts_status_send_at_idx" ON "broadcasts"("status", "send_at");

-- CreateIndex
CREATE INDEX "broadcasts_created_at_idx" ON "broadcasts"("created_at");

-- CreateIndex
CREATE INDEX "approval_requests_agent_key_status_idx" ON "approval_requests"("agent_key", "status");

-- CreateIndex
CREATE INDEX "approval_requests_status_expires_at_idx" ON "approval_requests"("status", "expires_at");

-- CreateIndex
CREATE INDEX "approval_requests_created_at_idx" ON "approval_requests"("created_at");

-- CreateIndex
CREATE UNIQUE INDEX "review_links_token_hash_key" ON "review_links"("token_hash");

-- CreateIndex
CREATE INDEX "review_links_message_id_idx" ON "review_links"("message_id");

-- CreateIndex
CREATE INDEX "review_links_approval_id_idx" ON "review_links"("approval_id");

-- CreateIndex
CREATE INDEX "callback_deliveries_status_next_attempt_at_idx" ON "callback_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE UNIQUE INDEX "callback_deliveries_kind_subject_id_key" ON "callback_deliveries"("kind", "subject_id");

-- CreateIndex
CREATE INDEX "inbound_replies_from_idx" ON "inbound_replies"("from");

-- CreateIndex
CREATE UNIQUE INDEX "inbound_replies_provider_provider_message_id_key" ON "inbound_replies"("provider", "provider_message_id");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_agent_key_fkey" FOREIGN KEY ("agent_key") REFERENCES "agents"("key") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "addresses" ADD CONSTRAINT "addresses_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "preference_tokens" ADD CONSTRAINT "preference_tokens_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "consent_entries" ADD CONSTRAINT "consent_entries_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "consents" ADD CONSTRAINT "consents_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "fatigue_states" ADD CONSTRAINT "fatigue_states_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_outcomes" ADD CONSTRAINT "event_outcomes_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "engagements" ADD CONSTRAINT "engagements_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "digests" ADD CONSTRAINT "digests_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "digest_items" ADD CONSTRAINT "digest_items_digest_id_fkey" FOREIGN KEY ("digest_id") REFERENCES "digests"("id") ON DELETE CASCADE ON UPDATE CASCADE;
