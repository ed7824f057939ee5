import { AppError, senderOf, type Principal } from "@svc/core";
import type { BulkItem } from "@svc/queue";
import {
  $transaction,
  expireApprovalRequests,
  findApprovalRequest,
  withdrawApprovalRequest,
} from "@svc/store";
import { kickOutbox, recordOutbox } from "../outbox/outbox";
import { enqueueAfterCommit } from "../shared/after-commit";
import {
  loadApprovalFor,
  serializeApproval,
  type ApprovalDeps,
  type ApprovalView,
} from "./approval-requests";
import { approvalChannel, recordRequestOutcome } from "./decide-request";

// POST /v1/approvals/{id}/cancel (docs/approvals.md "Withdrawing a request"): the sender takes back
// its own pending request, as `svcctl hook --ask` does when nobody decided in time. It reads
// `withdrawn` from then on, its review links answer 410 "Withdrawn", no callback goes out (nobody
// decided), and waiting reads answer at once. Withdrawing a withdrawn request changes nothing (200).

export async function withdrawApprovalRequestBySender(
  deps: ApprovalDeps,
  principal: Principal,
  id: string,
): Promise<ApprovalView> {
  const row = await loadApprovalFor(deps, principal, id);
  if (row.sender !== senderOf(principal))
    throw new AppError("forbidden", "only the sender of an approval request may withdraw it");
  if (row.status === "withdrawn") return serializeApproval(row, deps.now());
  const jobs: BulkItem[] = [];
  const result = await $transaction(deps.prisma, async (tx) => {
    const now = deps.now();
    const withdrawn = await withdrawApprovalRequest(tx, id, now);
    if (withdrawn) {
      await recordOutbox(tx, [
        {
          topic: "approval.withdrawn",
          payload: { approval_id: id, kind: "action", status: "withdrawn" },
          notify: approvalChannel(id),
        },
      ]);
      return { kind: "withdrawn" as const, request: withdrawn };
    }
    const [expired] = await expireApprovalRequests(tx, now, { id, limit: 1 });
    if (expired) {
      await recordRequestOutcome(tx, deps, expired, "expired", jobs);
      return { kind: "expired" as const, request: expired };
    }
    return { kind: "not_waiting" as const, request: (await findApprovalRequest(tx, id)) ?? row };
  });
  if (result.kind !== "not_waiting") kickOutbox(deps.queues);
  await enqueueAfterCommit(deps, { jobs });
  if (result.kind === "expired") throw new AppError("invalid_state", "expired");
  if (result.kind === "not_waiting") {
    if (result.request.status === "withdrawn") return serializeApproval(result.request, deps.now());
    throw new AppError(
      "invalid_state",
      `approval request is ${result.request.status}; only a pending request can be withdrawn`,
    );
  }
  return serializeApproval(result.request, deps.now());
}
