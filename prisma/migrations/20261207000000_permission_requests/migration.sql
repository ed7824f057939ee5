-- AlterEnum
ALTER TYPE "ApprovalStatus" ADD VALUE 'withdrawn';

-- CreateTable
CREATE TABLE "session_grants" (
    "id" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "rules" TEXT[],
    "approval_id" TEXT NOT NULL,
    "granted_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "session_grants_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "session_grants_owner_session_id_idx" ON "session_grants"("owner", "session_id");

-- CreateIndex
CREATE INDEX "session_grants_expires_at_idx" ON "session_grants"("expires_at");

-- AlterTable
ALTER TABLE "approval_requests" ADD COLUMN "session_grant" JSONB;
