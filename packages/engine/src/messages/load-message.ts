import { AppError, type Principal } from "@svc/core";
import type { PrismaClient } from "@svc/store";
import type { MessageWithAttempts } from "./serialize-message";

/** 404 when absent; 403 for an agent key reaching another sender's message (DECISIONS "Agents"). */
export async function loadMessageFor(
  prisma: PrismaClient,
  principal: Principal,
  id: string,
): Promise<MessageWithAttempts> {
  const row = await prisma.message.findUnique({ where: { id }, include: { attempts: true } });
  if (!row) throw new AppError("not_found", `no message '${id}'`);
  if (principal.agentKey !== null && row.agent_key !== principal.agentKey) {
    throw new AppError("forbidden", "agent keys may only reach their own messages");
  }
  return row;
}
