import type { ApprovalRequestRow, MessageRow } from "@svc/store";
import { DECISION_CALLBACK, type DecisionCallbackBody } from "../shared/record-callback";

// The `approval.decided` body of each kind of held item (docs/approvals.md "Decision callbacks").

type DecidedStatus = DecisionCallbackBody["status"];

export function requestDecisionBody(row: ApprovalRequestRow, status: DecidedStatus): DecisionCallbackBody {
  return {
    type: DECISION_CALLBACK,
    kind: "action",
    id: row.id,
    status,
    title: row.title,
    agent: row.agent_key,
    decided_by: row.decided_by,
    comment: row.comment,
    decided_at: (row.decided_at ?? row.expires_at).toISOString(),
    metadata: (row.metadata ?? {}) as Record<string, unknown>,
  };
}

export interface MessageDecision {
  status: DecidedStatus;
  decidedBy: string | null;
  comment: string | null;
  decidedAt: Date;
}

export function messageDecisionBody(row: MessageRow, decision: MessageDecision): DecisionCallbackBody {
  const content = (row.content ?? {}) as { title?: unknown };
  return {
    type: DECISION_CALLBACK,
    kind: "message",
    id: row.id,
    status: decision.status,
    title: typeof content.title === "string" ? content.title : "",
    agent: row.agent_key,
    decided_by: decision.decidedBy,
    comment: decision.comment,
    decided_at: decision.decidedAt.toISOString(),
    metadata: { recipient: row.recipient_external_id, category: row.category, status: row.status },
  };
}
