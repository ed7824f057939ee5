import type { Router } from "express";
import {
  createApprovalRequest,
  decideApprovalByKey,
  getApprovalRequestWaiting,
  listApprovalRequestsFor,
  withdrawApprovalRequestBySender,
  type ApprovalDeps,
  type ApprovalInput,
  type ListApprovalsQuery,
  type WaitingReadDeps,
} from "@svc/engine";
import { principalOf } from "../auth/require-key";
import { clientGone } from "../http/client-gone";
import { decisionRoutes } from "./decision-routes";

// Approval requests (docs/approvals.md "Approval requests"; waiting reads and withdrawal in
// "Waiting for the decision" and "Withdrawing a request").

export function approvalsRoutes(router: Router, deps: ApprovalDeps & WaitingReadDeps): void {
  router.post("/v1/approvals", async (req, res) => {
    res.status(201).json(await createApprovalRequest(deps, principalOf(res), req.body as ApprovalInput));
  });
  router.get("/v1/approvals", async (req, res) => {
    res.json(
      await listApprovalRequestsFor(deps, principalOf(res), req.query as unknown as ListApprovalsQuery),
    );
  });
  router.get("/v1/approvals/:id", async (req, res) => {
    const seconds = (req.query as { wait?: number }).wait ?? 0;
    const signal = clientGone(res);
    const view = await getApprovalRequestWaiting(deps, principalOf(res), req.params.id as string, {
      seconds,
      signal,
    });
    if (!signal.aborted) res.json(view);
  });
  router.post("/v1/approvals/:id/cancel", async (req, res) => {
    res.json(await withdrawApprovalRequestBySender(deps, principalOf(res), req.params.id as string));
  });
  decisionRoutes(router, "/v1/approvals", (principal, id, decision) =>
    decideApprovalByKey(deps, principal, id, decision),
  );
}
