import type { Request } from "express";

// Paths may carry bearer-like tokens (/v1/track/{token}, /preferences/{token}, /review/{token}); ids and external
// ids are shorter than 32 characters in practice, tokens (256 bits base64url = 43) are not.
const TOKEN_LIKE = /^[A-Za-z0-9_~.%-]{32,}$/;

export function maskPath(path: string): string {
  return path
    .split("/")
    .map((segment) => (TOKEN_LIKE.test(segment) ? "[REDACTED]" : segment))
    .join("/");
}

/** The request path for logs: no query string, token-like segments masked. */
export const loggablePath = (req: Request): string => maskPath(req.originalUrl.split("?")[0] ?? "/");
