import type { Principal } from "@svc/core";
import type { PrismaClient } from "@svc/store";
import { loadMessageFor } from "./load-message";
import { serializeMessage, type MessageView } from "./serialize-message";

export async function getMessage(
  { prisma }: { prisma: PrismaClient },
  principal: Principal,
  id: string,
): Promise<MessageView> {
  return serializeMessage(await loadMessageFor(prisma, principal, id));
}
