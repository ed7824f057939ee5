import type { RequestHandler, Response } from "express";
import { AppError, API_KEY_PATTERN, usesInboxToken } from "@svc/core";
import { authenticateInboxToken, type InboxPerson, type InboxTokenDeps } from "@svc/engine";
import { getOperation } from "../http/openapi-validation";

// The feed's authentication (docs/inbox.md "The feed API"): operations whose security names
// `inboxToken` take `Authorization: Bearer <inbox token>`, never an API key; the stream also takes
// `?token=`, as EventSource cannot set headers. Runs before validation, like the API-key check.

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="inbox"' };
const unauthorized = (detail: string) => new AppError("unauthorized", detail, { headers: CHALLENGE });

/** The one operation that reads the token from the query. */
const INBOX_STREAM_ROUTE = "/v1/inbox/stream";

export function requireInboxToken(deps: InboxTokenDeps): RequestHandler {
  return async (req, res, next) => {
    const operation = getOperation(res);
    if (!operation || !usesInboxToken(operation.security)) return next();
    const header = req.headers.authorization;
    const query = operation.route === INBOX_STREAM_ROUTE ? req.query.token : undefined;
    let token: string;
    if (header !== undefined) {
      const match = BEARER.exec(header);
      if (!match) throw unauthorized("malformed Authorization header: expected 'Bearer <inbox token>'");
      token = match[1]!;
    } else if (typeof query === "string" && query.length > 0) {
      token = query;
    } else {
      throw unauthorized("missing inbox token: send 'Authorization: Bearer <inbox token>'");
    }
    if (API_KEY_PATTERN.test(token))
      throw unauthorized(
        "API keys are not accepted here: the inbox takes an inbox token (POST /v1/recipients/{external_id}/inbox-token)",
      );
    const person = await authenticateInboxToken(deps, token);
    res.locals.inboxPerson = person;
    // Rate-limited per person, as API requests are per key (auth/rate-limit.ts).
    res.locals.rateLimitKey = `inbox:${person.recipientId}`;
    next();
  };
}

/** The person resolved by `requireInboxToken`; inbox routes can rely on it. */
export function inboxPersonOf(res: Response): InboxPerson {
  const person = res.locals.inboxPerson as InboxPerson | undefined;
  if (!person) throw unauthorized("missing inbox token");
  return person;
}
