import type { Principal } from "@svc/core";
import type { RootDatabase } from "@svc/store";
import { loadMessageFor } from "../shared/load-message";
import { serializeMessage, type MessageView } from "../shared/serialize-message";

export async function getMessage(
  { prisma }: { prisma: RootDatabase },
  principal: Principal,
  id: string,
): Promise<MessageView> {
  return serializeMessage(await loadMessageFor(prisma, principal, id));
}
