import type { Router } from "express";
import { listCallbacks, retryCallback, type ListCallbacksQuery, type RetryCallbackDeps } from "@svc/engine";

// Operators' view of the decision callbacks (docs/approvals.md "Failed callbacks"); admin only,
// as the OpenAPI document says.
export function callbacksRoutes(router: Router, deps: RetryCallbackDeps): void {
  router.get("/v1/callbacks", async (req, res) => {
    res.json(await listCallbacks(deps, req.query as unknown as ListCallbacksQuery));
  });
  router.post("/v1/callbacks/:id/retry", async (req, res) => {
    res.json(await retryCallback(deps, req.params.id as string));
  });
}
