import type { Router } from "express";
import type { Principal } from "@svc/core";
import type { Decision } from "@svc/engine";
import { principalOf } from "../auth/require-key";

// POST <base>/:id/approve and <base>/:id/reject for held messages and approval requests alike
// (docs/approvals.md): the body's optional `reason` is the approval's comment or the rejection's
// reason.

export function decisionRoutes(
  router: Router,
  base: string,
  decide: (principal: Principal, id: string, decision: Decision) => Promise<unknown>,
): void {
  router.post(`${base}/:id/approve`, async (req, res) => {
    const comment = reasonOf(req.body);
    res.json(await decide(principalOf(res), req.params.id as string, { action: "approve", comment }));
  });
  router.post(`${base}/:id/reject`, async (req, res) => {
    const reason = reasonOf(req.body);
    res.json(await decide(principalOf(res), req.params.id as string, { action: "reject", reason }));
  });
}

/** The optional `reason` of a decision body (the document checked its shape). */
const reasonOf = (body: unknown): string | null => (body as { reason?: string } | undefined)?.reason ?? null;
