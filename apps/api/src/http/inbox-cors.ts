import cors from "cors";
import type { Express } from "express";

// CORS for the in-app inbox only (docs/inbox.md "Origins"): the feed, the stream and /inbox.js
// answer browsers on the origins in `inbox.allowed_origins` (`*` for any). Every other endpoint
// stays without CORS: API keys belong on servers. Mounted before route matching, so preflight
// requests (OPTIONS) are answered here.

const INBOX_CORS_PATHS = ["/v1/inbox", "/inbox.js"];

export function mountInboxCors(app: Express, allowedOrigins: readonly string[]): void {
  if (allowedOrigins.length === 0) return;
  app.use(
    INBOX_CORS_PATHS,
    cors({
      origin: allowedOrigins.includes("*") ? "*" : [...allowedOrigins],
      methods: ["GET", "POST"],
      allowedHeaders: ["Authorization", "Content-Type", "Last-Event-ID"],
      maxAge: 600,
    }),
  );
}
