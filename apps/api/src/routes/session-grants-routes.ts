import type { Router } from "express";
import { endSessionGrantsOf, listSessionGrants, type ApprovalDeps } from "@svc/engine";
import { principalOf } from "../auth/require-key";

// "Allow for this session" grants as the hook reads and ends them (docs/hooks.md "Allow for this session").

export function sessionGrantsRoutes(router: Router, deps: ApprovalDeps): void {
  router.get("/v1/session-grants/:session_id", async (req, res) => {
    res.json(await listSessionGrants(deps, principalOf(res), req.params.session_id as string));
  });
  router.delete("/v1/session-grants/:session_id", async (req, res) => {
    await endSessionGrantsOf(deps, principalOf(res), req.params.session_id as string);
    res.status(204).end();
  });
}
