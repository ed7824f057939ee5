import { createApiKey } from "@svc/engine";
import { createPrisma } from "@svc/store";
import { postJsonScript } from "./wrk";

/** The event the accept benchmarks post (a Lua expression): one of 1,000 recipients, the counter as data. */
export const EVENT_BODY = `'{"name":"order.created","recipient":"user-' .. (counter % 1000) .. '","data":{"order":' .. counter .. ',"total":"42.00"}}'`;

/** A wrk script posting EVENT_BODY to svc with a new `events:write` key made in its database. */
export async function eventPostScript(databaseUrl: string, keyName: string): Promise<string> {
  const prisma = createPrisma({ databaseUrl });
  try {
    const { key } = await createApiKey(
      { prisma, now: () => new Date() },
      { name: keyName, scopes: ["events:write"] },
    );
    return postJsonScript({ Authorization: `Bearer ${key}` }, EVENT_BODY);
  } finally {
    await prisma.$disconnect();
  }
}
