import type { Router } from "express";
import type { Principal } from "@svc/core";
import type { Decision } from "@svc/engine";
import { principalOf } from "../auth/require-key";

// POST <base>/:id/approve and <base>/:id/reject for held messages and approval requests alike
// (docs/approvals.md): the body's optional `reason` is the approval's comment or the rejection's
// reason; `for_session` (approval requests only, docs/hooks.md) allows a tool call for its session.

export function decisionRoutes(
  router: Router,
  base: string,
  decide: (principal: Principal, id: string, decision: Decision) => Promise<unknown>,
): void {
  router.post(`${base}/:id/approve`, async (req, res) => {
    const comment = reasonOf(req.body);
    const forSession = (req.body as { for_session?: boolean } | undefined)?.for_session === true;
    res.json(
      await decide(principalOf(res), req.params.id as string, { action: "approve", comment, forSession }),
    );
  });
  router.post(`${base}/:id/reject`, async (req, res) => {
    const reason = reasonOf(req.body);
    res.json(await decide(principalOf(res), req.params.id as string, { action: "reject", reason }));
  });
}

/** The optional `reason` of a decision body (the document checked its shape). */
const reasonOf = (body: unknown): string | null => (body as { reason?: string } | undefined)?.reason ?? null;
