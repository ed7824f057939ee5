import type { RequestHandler, Response } from "express";
import { accessDenial, AppError, type Principal } from "@svc/core";
import { authenticate, type ApiKeyCache } from "@svc/engine";
import { addLogContext } from "@svc/log";
import type { RootDatabase } from "@svc/store";
import { getOperation } from "../http/openapi-validation";

// Authentication, then scope, before validation, so a bad body without a key is 401 (docs/api.md,
// "Request rules").
// The scopes an operation needs are read from its OpenAPI security requirement, so the document
// and the behaviour cannot disagree.

export function requireKey(deps: {
  prisma: RootDatabase;
  now: () => Date;
  apiKeyCache?: ApiKeyCache;
}): RequestHandler {
  return async (req, res, next) => {
    const operation = getOperation(res);
    if (!operation?.requiresKey) return next();
    const principal = await authenticate(deps, req.headers.authorization);
    res.locals.principal = principal;
    addLogContext({ api_key_id: principal.keyId });
    // The same check decides which MCP tools a key sees and may call (docs/mcp.md).
    const denial = accessDenial(principal, operation);
    if (denial) throw new AppError("forbidden", denial);
    next();
  };
}

/** The caller resolved by `requireKey`; routes behind a key can rely on it. */
export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new AppError("unauthorized", "missing API key");
  return principal;
}
