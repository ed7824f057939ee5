import { Router, type ErrorRequestHandler, type Request } from "express";
import { STATUS_TITLE, isAppError } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import {
  categoryOnPage,
  changeOwnPreferences,
  getOwnPreferences,
  oneClickUnsubscribe,
  unsubscribeConfirmation,
} from "@svc/engine";
import type { Logger } from "@svc/log";
import type { RootDatabase } from "@svc/store";
import { loggablePath } from "../http/loggable-path";
import { requestOrigin } from "../http/request-origin";
import { FORM_TYPE, formBody, MULTIPART_TYPE, submitField } from "./form-post";
import { sendPage, setHostedHeaders } from "./html";
import { preferencesFromForm } from "./preferences-form";
import { stringsFor } from "./preferences-i18n";
import {
  renderErrorPage,
  renderPreferencesPage,
  renderUnsubscribeConfirm,
  renderUnsubscribed,
} from "./preferences-page";

// Hosted preference pages (docs/preferences.md, "Hosted pages"): the token in the path is the
// credential, forms post back to the same URL, errors are HTML pages with the problem's fields.

export interface PreferencePagesDeps {
  prisma: RootDatabase;
  config: SvcConfig;
  logger: Logger;
  now: () => Date;
}

const tokenOf = (req: Request) => req.params.token as string;

/** Mounted at `/preferences` (PREFERENCE_PAGES_PATH), so other requests never walk its routes. */
export const PREFERENCE_PAGES_PATH = "/preferences";

export function preferencePages(deps: PreferencePagesDeps): Router {
  const router = Router();
  router.use((_req, res, next) => {
    setHostedHeaders(res);
    next();
  });

  router.get("/:token", async (req, res) => {
    sendPage(res, 200, renderPreferencesPage(await getOwnPreferences(deps, tokenOf(req)), tokenOf(req)));
  });

  // The page's form always sends form=preferences; a body without it is not the page's form.
  router.post("/:token", formBody(), submitField("form", "preferences"), async (req, res) => {
    const token = tokenOf(req);
    const view = await getOwnPreferences(deps, token);
    const t = stringsFor(view.locale);
    const form = preferencesFromForm((req.body ?? {}) as Record<string, unknown>, view, t);
    if (!form.ok) {
      sendPage(
        res,
        422,
        renderPreferencesPage(view, token, { errors: form.errors, enteredQuietHours: form.entered }),
      );
      return;
    }
    try {
      const saved = await changeOwnPreferences(deps, token, form.input, {
        method: "hosted_page",
        ...requestOrigin(req),
      });
      sendPage(res, 200, renderPreferencesPage(saved, token, { saved: true }));
    } catch (error) {
      if (!isAppError(error) || error.status !== 422) throw error;
      sendPage(
        res,
        422,
        renderPreferencesPage(view, token, { errors: (error.errors ?? []).map((e) => e.msg) }),
      );
    }
  });

  // Opening the link (or a mail client prefetching it) changes nothing: it shows a button.
  router.get("/:token/unsubscribe", async (req, res) => {
    const confirmation = await unsubscribeConfirmation(deps, tokenOf(req));
    if (!confirmation) {
      res.redirect(303, `../${tokenOf(req)}`);
      return;
    }
    sendPage(res, 200, renderUnsubscribeConfirm(confirmation.locale, confirmation.category, tokenOf(req)));
  });

  // RFC 8058: `List-Unsubscribe=One-Click` in a form-encoded POST body. Mail providers get plain
  // text; the confirm page's button (a browser asking for HTML) gets a page.
  // Multipart too: RFC 8058 says mail providers SHOULD send that form.
  router.post(
    "/:token/unsubscribe",
    formBody([FORM_TYPE, MULTIPART_TYPE]),
    submitField("List-Unsubscribe", "One-Click"),
    async (req, res) => {
      const result = await oneClickUnsubscribe(deps, tokenOf(req), requestOrigin(req));
      if (req.accepts(["text/plain", "text/html"]) === "text/html") {
        sendPage(
          res,
          200,
          renderUnsubscribed(
            result.locale,
            await categoryOnPage(deps.prisma, result.category),
            result.changed,
            tokenOf(req),
          ),
        );
        return;
      }
      res.status(200).type("text/plain; charset=utf-8").send(`Unsubscribed from ${result.category}\n`);
    },
  );

  router.use(hostedErrorPage(deps.logger));
  return router;
}

/** Errors on hosted pages: an HTML page with the problem's title, status and detail. */
export function hostedErrorPage(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let problem: { status: number; title: string; detail: string };
    if (isAppError(err)) problem = { status: err.status, title: err.title, detail: err.detail };
    else if (
      typeof (err as { status?: unknown }).status === "number" &&
      (err as { status: number }).status < 500
    ) {
      // body-parser errors (too large, malformed)
      const status = (err as { status: number }).status;
      problem = { status, title: STATUS_TITLE[status] ?? "Error", detail: (err as Error).message };
    } else {
      logger.error("hosted page failed", { method: req.method, path: loggablePath(req), error: err });
      problem = {
        status: 500,
        title: STATUS_TITLE[500]!,
        detail: `An internal error occurred; request id ${String(res.locals.requestId ?? "unknown")}`,
      };
    }
    setHostedHeaders(res);
    sendPage(res, problem.status, renderErrorPage(problem));
  };
}
