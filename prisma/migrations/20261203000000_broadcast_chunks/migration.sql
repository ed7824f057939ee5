-- Broadcasts: the audience as rows (listed external ids, or the people a filter matched at the
-- start) and the chunks jobs send to, each with its resume point (docs/broadcasts.md).

-- AlterTable
ALTER TABLE "broadcasts" ADD COLUMN "run" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "broadcast_members" (
    "broadcast_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "external_id" TEXT NOT NULL,

    CONSTRAINT "broadcast_members_pkey" PRIMARY KEY ("broadcast_id","seq")
);

-- CreateTable
CREATE TABLE "broadcast_chunks" (
    "broadcast_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "first_seq" INTEGER NOT NULL,
    "last_seq" INTEGER NOT NULL,
    "next_seq" INTEGER NOT NULL,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "done" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "broadcast_chunks_pkey" PRIMARY KEY ("broadcast_id","position")
);

-- CreateIndex
CREATE INDEX "broadcast_chunks_broadcast_id_done_idx" ON "broadcast_chunks"("broadcast_id", "done");

-- AddForeignKey
ALTER TABLE "broadcast_members" ADD CONSTRAINT "broadcast_members_broadcast_id_fkey" FOREIGN KEY ("broadcast_id") REFERENCES "broadcasts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "broadcast_chunks" ADD CONSTRAINT "broadcast_chunks_broadcast_id_fkey" FOREIGN KEY ("broadcast_id") REFERENCES "broadcasts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
