import type { Request } from "express";

/** The caller's address and user agent, for ledger provenance. */
export const requestOrigin = (req: Request) => ({
  ip: req.ip ?? null,
  user_agent: req.get("user-agent") ?? null,
});
