import { Router, type Request, type Response } from "express";
import type { SvcConfig } from "@svc/config";
import { decideByReviewLink, reviewPageFor, type LinkDecisionResult, type ReviewPage } from "@svc/engine";
import type { Logger } from "@svc/log";
import type { Queues } from "@svc/queue";
import type { RootDatabase } from "@svc/store";
import { formBody, submitField } from "./form-post";
import { sendPage, setHostedHeaders } from "./html";
import { hostedErrorPage } from "./preferences-router";
import { reasonFromForm } from "./review-form";
import { REVIEW_LANGUAGES, reviewStringsFor } from "./review-i18n";
import { renderReviewPage, type RenderContext } from "./review-page";

// Hosted review links (docs/approvals.md "Review links"): the token in the path is the reviewer's
// credential. GET shows what is asked and changes nothing (mail scanners and link previews are
// harmless); only the two forms' POSTs decide. A closed item answers 410 naming who decided.

export interface ReviewPagesDeps {
  prisma: RootDatabase;
  config: SvcConfig;
  logger: Logger;
  queues: Pick<Queues, "enqueueBulk" | "redis" | "prefix">;
  now: () => Date;
}

/** Mounted at `/review` (REVIEW_PAGES_PATH), outside the OpenAPI validator like /preferences. */
export const REVIEW_PAGES_PATH = "/review";

const tokenOf = (req: Request) => req.params.token as string;

/**
 * The page speaks the reviewer's stored locale when the reviewer is a known person with one, else
 * the browser's Accept-Language, else English; times are in the reviewer's time zone, else UTC.
 */
function contextFor(view: ReviewPage, req: Request, now: Date): RenderContext {
  const locale = view.profile?.locale ?? (req.acceptsLanguages(...REVIEW_LANGUAGES) || null);
  return { t: reviewStringsFor(locale), timeZone: knownTimeZone(view.profile?.timezone), now };
}

function knownTimeZone(zone: string | null | undefined): string {
  if (!zone) return "UTC";
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone;
  } catch {
    return "UTC";
  }
}

export function reviewPages(deps: ReviewPagesDeps): Router {
  const router = Router();
  router.use((_req, res, next) => {
    setHostedHeaders(res);
    next();
  });

  router.get("/:token", async (req, res) => {
    const token = tokenOf(req);
    const view = await reviewPageFor(deps, token);
    const context = contextFor(view, req, deps.now());
    sendPage(res, view.state === "open" ? 200 : 410, renderReviewPage(view, { at: "link", token }, context));
  });

  // A reloaded or copied result address: back to the page, which changes nothing.
  for (const action of ["approve", "reject"]) {
    router.get(`/:token/${action}`, (req, res) => res.redirect(303, `../${tokenOf(req)}`));
  }

  // Each form sends its decision as a field: a POST without it (a script, a prefetch, a JSON body)
  // decides nothing.
  router.post("/:token/approve", formBody(), submitField("decision", "approve"), async (req, res) => {
    // "Allow for this session" on a coding agent's tool call (docs/hooks.md).
    const forSession = (req.body as Record<string, unknown> | undefined)?.scope === "session";
    sendDecision(req, res, await decideByReviewLink(deps, tokenOf(req), { action: "approve", forSession }));
  });

  router.post("/:token/reject", formBody(), submitField("decision", "reject"), async (req, res) => {
    const token = tokenOf(req);
    const view = await reviewPageFor(deps, token);
    const context = contextFor(view, req, deps.now());
    const form = reasonFromForm((req.body ?? {}) as Record<string, unknown>, context.t);
    if (!form.ok && view.state === "open") {
      const state = { errors: form.errors, reason: form.entered };
      sendPage(res, 422, renderReviewPage(view, { at: "action" }, context, state));
      return;
    }
    const reason = form.ok ? form.reason : null;
    sendDecision(req, res, await decideByReviewLink(deps, token, { action: "reject", reason }));
  });

  /** 200 with the decision taken; 410 when it came too late (the page says who decided, and when). */
  function sendDecision(req: Request, res: Response, result: LinkDecisionResult): void {
    const context = contextFor(result.page, req, deps.now());
    const document = renderReviewPage(result.page, { at: "action" }, context, { decided: result.decided });
    sendPage(res, result.decided ? 200 : 410, document);
  }

  router.use(hostedErrorPage(deps.logger));
  return router;
}
