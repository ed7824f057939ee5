import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { RequestHandler } from "express";
import { AppError } from "@svc/core";

// GET /inbox.js (docs/inbox.md "The component"): the `<svc-inbox>` module, built from
// packages/inbox-element by `npm run build` (and `npm ci`). Read once; revalidated by ETag.

export const INBOX_ELEMENT_PATH = "/inbox.js";
const INBOX_ELEMENT_BUNDLE = path.resolve(__dirname, "../../../../packages/inbox-element/dist/inbox.js");

export function inboxElement(bundle: string = INBOX_ELEMENT_BUNDLE): RequestHandler {
  let loaded: Promise<{ body: Buffer; etag: string }> | null = null;
  const load = () =>
    (loaded ??= readFile(bundle).then(
      (body) => ({ body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` }),
      (error: unknown) => {
        loaded = null; // built later (a development checkout): read again on the next request
        throw new AppError("unavailable", "the inbox component is not built: run `npm run build`", {
          cause: error,
        });
      },
    ));
  return async (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const { body, etag } = await load();
    res.setHeader("Content-Type", "text/javascript; charset=utf-8");
    // Short-lived, then revalidated: a new version reaches pages within minutes.
    res.setHeader("Cache-Control", "public, max-age=300, must-revalidate");
    res.setHeader("ETag", etag);
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (req.headers["if-none-match"] === etag) {
      res.status(304).end();
      return;
    }
    res.status(200).end(req.method === "HEAD" ? undefined : body);
  };
}
