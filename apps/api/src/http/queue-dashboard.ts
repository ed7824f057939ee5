import type { Express, RequestHandler } from "express";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import { AppError, hasScope } from "@svc/core";
import { authenticate } from "@svc/engine";
import { QUEUE_NAMES, type Queues } from "@svc/queue";
import type { RootDatabase } from "@svc/store";

const QUEUE_DASHBOARD_PATH = "/admin/queues";
const BASIC_CHALLENGE = { "WWW-Authenticate": 'Basic realm="svc queues", charset="UTF-8"' };

/**
 * Operators' BullMQ dashboard. Browsers cannot send bearer tokens, so it takes HTTP Basic with an
 * admin API key as the password (any user name): the one place that answers with a Basic challenge.
 */
function basicAdminAuth(deps: { prisma: RootDatabase; now: () => Date }): RequestHandler {
  return async (req, _res, next) => {
    const header = req.headers.authorization ?? "";
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    const decoded = match ? Buffer.from(match[1]!, "base64").toString("utf8") : "";
    const password = decoded.includes(":") ? decoded.slice(decoded.indexOf(":") + 1) : "";
    if (!password) {
      return next(
        new AppError("unauthorized", "sign in with an admin API key as the password", {
          headers: BASIC_CHALLENGE,
        }),
      );
    }
    try {
      const principal = await authenticate(deps, `Bearer ${password}`);
      if (!hasScope(principal, "admin") || principal.agentKey) {
        return next(new AppError("forbidden", "the queue dashboard needs an admin API key"));
      }
      next();
    } catch (error) {
      next(
        error instanceof AppError && error.status === 401
          ? new AppError("unauthorized", error.detail, { headers: BASIC_CHALLENGE })
          : error,
      );
    }
  };
}

export function mountQueueDashboard(
  app: Express,
  queues: Queues,
  deps: { prisma: RootDatabase; now: () => Date },
) {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: QUEUE_NAMES.map((name) => new BullMQAdapter(queues.queue(name)) as never),
    // @bull-board/express pins its own copy of @bull-board/api; the adapter is the same at runtime.
    serverAdapter: serverAdapter as never,
  });
  app.use(QUEUE_DASHBOARD_PATH, basicAdminAuth(deps), serverAdapter.getRouter() as RequestHandler);
}
