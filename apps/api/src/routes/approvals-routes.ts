import type { Router } from "express";
import {
  createApprovalRequest,
  decideApprovalByKey,
  getApprovalRequest,
  listApprovalRequestsFor,
  type ApprovalDeps,
  type ApprovalInput,
  type ListApprovalsQuery,
} from "@svc/engine";
import { principalOf } from "../auth/require-key";
import { decisionRoutes } from "./decision-routes";

// Approval requests (docs/approvals.md "Approval requests").

export function approvalsRoutes(router: Router, deps: ApprovalDeps): void {
  router.post("/v1/approvals", async (req, res) => {
    res.status(201).json(await createApprovalRequest(deps, principalOf(res), req.body as ApprovalInput));
  });
  router.get("/v1/approvals", async (req, res) => {
    res.json(
      await listApprovalRequestsFor(deps, principalOf(res), req.query as unknown as ListApprovalsQuery),
    );
  });
  router.get("/v1/approvals/:id", async (req, res) => {
    res.json(await getApprovalRequest(deps, principalOf(res), req.params.id as string));
  });
  decisionRoutes(router, "/v1/approvals", (principal, id, decision) =>
    decideApprovalByKey(deps, principal, id, decision),
  );
}
