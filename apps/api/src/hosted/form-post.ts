import express, { type RequestHandler } from "express";
import multer from "multer";
import { AppError } from "@svc/core";

// What a hosted page's POST must be before anything is read or changed (docs/preferences.md
// "Hosted pages", docs/approvals.md "Review links"): a form, as the page's own form sends it
// (415 otherwise), carrying the field the page's form always sends (400 without it). A JSON, text
// or empty body, a prefetch or a stray script posting nothing, changes nothing. No Origin check:
// the token in the path is the credential (docs/decisions.md "Hostile input").

export const FORM_TYPE = "application/x-www-form-urlencoded";
/** RFC 8058 lets mail providers send one-click unsubscribes as multipart/form-data too (its SHOULD). */
export const MULTIPART_TYPE = "multipart/form-data";

const PARSERS: Record<string, RequestHandler> = {
  [FORM_TYPE]: express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 500, type: FORM_TYPE }),
  [MULTIPART_TYPE]: multer({ limits: { fields: 20, fieldSize: 16 * 1024, files: 0, parts: 20 } }).none(),
};

/**
 * Parses the body when its media type is one of `types` (default: a plain form), else 415. The
 * parsed fields are plain strings (or lists of strings for a repeated name).
 */
export function formBody(types: readonly string[] = [FORM_TYPE]): RequestHandler {
  return (req, res, next) => {
    const type = req.is(types as string[]);
    if (typeof type !== "string") {
      next(
        new AppError(
          "unsupported_media_type",
          `This form accepts ${types.join(" or ")} bodies only (the page's own form sends one)`,
        ),
      );
      return;
    }
    PARSERS[type]!(req, res, (error?: unknown) => {
      // body-parser's own errors carry a 4xx status; multer's and busboy's (a malformed multipart
      // body, too many parts) do not, and are the sender's fault just the same.
      if (error === undefined || typeof (error as { status?: unknown }).status === "number")
        return next(error);
      next(new AppError("bad_request", `Malformed form body: ${(error as Error).message}`));
    });
  };
}

/** 400 unless the body carries `name` = `value`, the field the page's form sends with every submit. */
export function submitField(name: string, value: string): RequestHandler {
  return (req, _res, next) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body[name] === value) return next();
    next(new AppError("bad_request", `The form must be submitted from its page (field ${name}=${value})`));
  };
}
