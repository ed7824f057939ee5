import { AppError, type Principal } from "@svc/core";
import { findMessageWithAttempts, type MessageWithAttempts, type RootDatabase } from "@svc/store";

/** 404 when absent; 403 for an agent key reaching another sender's message (docs/messages.md). */
export async function loadMessageFor(
  prisma: RootDatabase,
  principal: Principal,
  id: string,
): Promise<MessageWithAttempts> {
  const row = await findMessageWithAttempts(prisma, id);
  if (!row) throw new AppError("not_found", `no message '${id}'`);
  if (principal.agentKey !== null && row.agent_key !== principal.agentKey) {
    throw new AppError("forbidden", "agent keys may only reach their own messages");
  }
  return row;
}
