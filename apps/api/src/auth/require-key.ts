import type { Request, RequestHandler, Response } from "express";
import { AppError, hasScope, isScope, type Principal } from "@svc/core";
import { authenticate, type ApiKeyCache } from "@svc/engine";
import { addLogContext } from "@svc/log";
import type { PrismaClient } from "@svc/store";
import { getOperation } from "../http/openapi-validation";

// Authentication, then scope (DECISIONS: before validation, so a bad body without a key is 401).
// The scopes an operation needs are read from its OpenAPI security requirement, so the document
// and the behaviour cannot disagree.

export function requireKey(deps: {
  prisma: PrismaClient;
  now: () => Date;
  apiKeyCache?: ApiKeyCache;
}): RequestHandler {
  return async (req, res, next) => {
    const operation = getOperation(res);
    if (!operation?.requiresKey) return next();
    const principal = await authenticate(deps, req.headers.authorization);
    res.locals.principal = principal;
    addLogContext({ api_key_id: principal.keyId });
    const scopes = operation.scopes.filter(isScope);
    if (scopes.includes("admin") && principal.agentKey) {
      throw new AppError("forbidden", "agent-bound keys cannot use admin endpoints");
    }
    if (operation.agentKeysRefused && principal.agentKey)
      throw new AppError("forbidden", operation.agentKeysRefused);
    // Any one listed scope is enough (OpenAPI: alternative security requirements).
    if (scopes.length > 0 && !scopes.some((scope) => hasScope(principal, scope))) {
      throw new AppError(
        "forbidden",
        `this API key lacks the scope ${scopes.map((s) => `'${s}'`).join(" or ")}`,
      );
    }
    next();
  };
}

/** The caller resolved by `requireKey`; routes behind a key can rely on it. */
export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new AppError("unauthorized", "missing API key");
  return principal;
}

export type AuthedRequest = Request;
