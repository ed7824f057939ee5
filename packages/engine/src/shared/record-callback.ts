import { newId } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import type { BulkItem } from "@svc/queue";
import { insertCallbackDelivery, type Transaction } from "@svc/store";

// A decision tells the agent's backend (docs/approvals.md "Decision callbacks"): the callback is
// recorded in the decision's own transaction, so a crash cannot lose it, and its `send-callback`
// job is enqueued after the commit (a lost enqueue is picked up by the callbacks sweep).

export const DECISION_CALLBACK = "approval.decided";

/** The JSON POSTed to approvals.callback_url. */
export interface DecisionCallbackBody {
  type: typeof DECISION_CALLBACK;
  /** `action` for approval requests, `message` for held messages. */
  kind: "action" | "message";
  /** The approval request id (`apr_…`) or the message id (`msg_…`). */
  id: string;
  status: "approved" | "rejected" | "expired";
  title: string;
  agent: string | null;
  /** The deciding key's name, `link:<reviewer>` for a review link, null on expiry. */
  decided_by: string | null;
  comment: string | null;
  decided_at: string;
  metadata: Record<string, unknown>;
}

/**
 * Records the callback of one decision inside `tx`; returns its id, or null when no
 * approvals.callback_url is configured or the item already has its callback.
 */
export async function recordDecisionCallback(
  tx: Transaction,
  deps: { config: Pick<SvcConfig, "approvals">; now: () => Date },
  body: DecisionCallbackBody,
): Promise<string | null> {
  if (!deps.config.approvals.callback_url) return null;
  const now = deps.now();
  const id = newId("callback", now.getTime());
  const recorded = await insertCallbackDelivery(tx, {
    id,
    kind: DECISION_CALLBACK,
    subjectId: body.id,
    body: body as unknown as Record<string, unknown>,
    now,
  });
  return recorded ? id : null;
}

/** The job that sends a recorded callback (enqueue it after the decision commits). */
export function callbackJob(callbackId: string): BulkItem<"send-callback"> {
  return { name: "send-callback", payload: { callbackId } };
}
