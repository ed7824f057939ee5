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
  router.post("/v1/approvals/:id/approve", async (req, res) => {
    const reason = reasonOf(req.body);
    res.json(
      await decideApprovalByKey(deps, principalOf(res), req.params.id as string, {
        action: "approve",
        comment: reason,
      }),
    );
  });
  router.post("/v1/approvals/:id/reject", async (req, res) => {
    const reason = reasonOf(req.body);
    res.json(
      await decideApprovalByKey(deps, principalOf(res), req.params.id as string, {
        action: "reject",
        reason,
      }),
    );
  });
}

/** The optional `reason` of a decision body (the document checked its shape). */
export const reasonOf = (body: unknown): string | null =>
  (body as { reason?: string } | undefined)?.reason ?? null;
