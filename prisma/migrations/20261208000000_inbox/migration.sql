-- CreateTable
CREATE TABLE "inbox_items" (
    "id" TEXT NOT NULL,
    "recipient_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "url" TEXT,
    "category" TEXT NOT NULL,
    "importance" "Importance" NOT NULL,
    "has_links" BOOLEAN NOT NULL DEFAULT false,
    "seq" BIGSERIAL NOT NULL,
    "created_seq" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "received_at" TIMESTAMPTZ(3),
    "seen_at" TIMESTAMPTZ(3),
    "read_at" TIMESTAMPTZ(3),
    "archived_at" TIMESTAMPTZ(3),

    CONSTRAINT "inbox_items_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "inbox_items_message_id_key" ON "inbox_items"("message_id");

-- CreateIndex
CREATE INDEX "inbox_items_recipient_id_created_at_id_idx" ON "inbox_items"("recipient_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "inbox_items_recipient_id_seq_idx" ON "inbox_items"("recipient_id", "seq");

-- AddForeignKey
ALTER TABLE "inbox_items" ADD CONSTRAINT "inbox_items_recipient_id_fkey" FOREIGN KEY ("recipient_id") REFERENCES "recipients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "inbox_items" ADD CONSTRAINT "inbox_items_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
