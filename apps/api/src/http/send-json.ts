import { createHash } from "node:crypto";
import type { Response } from "express";

// `res.status(status).json(body)` costs a content-type parse and format, a Buffer copy for the
// ETag and a two-chunk socket write per response. On the hot paths the same bytes are written
// once: the same status, headers (Content-Type, Content-Length, weak ETag, in Express's order) and
// body. Anything unusual (response validation wrapping res.json, app settings that change JSON or
// ETags, headers set earlier) goes through Express as before.

const JSON_TYPE = "application/json; charset=utf-8";
const EMPTY_ENTITY_TAG = '"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"'; // the etag package's constant

/** Express's default weak ETag (the `etag` package) of a UTF-8 body, without copying it into a Buffer. */
export function weakEntityTag(body: string): string {
  if (body.length === 0) return `W/${EMPTY_ENTITY_TAG}`;
  const hash = createHash("sha1").update(body, "utf8").digest("base64").substring(0, 27);
  return `W/"${Buffer.byteLength(body, "utf8").toString(16)}-${hash}"`;
}

function expressWouldDoTheSame(res: Response): boolean {
  const app = res.app;
  return (
    !Object.hasOwn(res, "json") && // response validation wraps res.json per response
    app.get("etag") === "weak" &&
    app.get("json replacer") === undefined &&
    app.get("json spaces") === undefined &&
    !app.get("json escape") &&
    // GET and HEAD go through Express: conditional requests (304) and bodiless answers.
    res.req.method !== "GET" &&
    res.req.method !== "HEAD" &&
    res.getHeader("content-type") === undefined &&
    res.getHeader("etag") === undefined &&
    res.getHeader("transfer-encoding") === undefined
  );
}

/** `res.status(status).json(body)` for an object body and a status with a body (not 204, 205 or 304). */
export function sendJson(res: Response, status: number, body: object): void {
  if (!expressWouldDoTheSame(res)) {
    res.status(status).json(body);
    return;
  }
  const json = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", JSON_TYPE);
  res.setHeader("Content-Length", String(Buffer.byteLength(json, "utf8")));
  res.setHeader("ETag", weakEntityTag(json));
  res.end(json, "utf8");
}
