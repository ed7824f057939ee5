import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import { getLogContext, withLogContext, type Logger } from "@svc/log";
import { loggablePath } from "./loggable-path";

// Request id (accepted from X-Request-Id when sane, else generated), echoed in the response,
// carried in the log context, and one access-log line per request when the response closes.

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const REQUEST_ID_HEADER = "X-Request-Id";

function acceptRequestId(header: string | undefined): string {
  return header !== undefined && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const header = req.headers["x-request-id"];
    const requestId = acceptRequestId(typeof header === "string" ? header : undefined);
    res.locals.requestId = requestId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    withLogContext({ request_id: requestId }, () => {
      // Below `info` there is no access log: nothing to build, no listener to call, no clock read.
      if (!logger.isInfoEnabled()) return next();
      const started = process.hrtime.bigint();
      const context = getLogContext() ?? {};
      res.once("close", () => {
        const route = (req as { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute;
        logger.info("request", {
          ...context,
          method: req.method,
          path: loggablePath(req),
          ...(route ? { route } : {}),
          status: res.statusCode,
          duration_ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
          ...(res.writableFinished ? {} : { aborted: true }),
        });
      });
      next();
    });
  };
}
