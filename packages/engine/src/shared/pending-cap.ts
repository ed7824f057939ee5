import { AppError, retryAfterSeconds } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import {
  heldMessagesOf,
  lockAgentHolds,
  openApprovalRequestsOf,
  type Database,
  type Transaction,
} from "@svc/store";

// approvals.max_pending_per_agent (docs/approvals.md "Too many waiting items"): an agent may have
// that many items waiting for people at once, held messages and open approval requests together.
// The next one is refused with 429 and a Retry-After until its nearest deadline frees a place.

interface CapDeps {
  config: Pick<SvcConfig, "approvals">;
  now: () => Date;
}

async function waitingItems(db: Database, agentKey: string, now: Date) {
  const [messages, requests] = await Promise.all([
    heldMessagesOf(db, agentKey, now),
    openApprovalRequestsOf(db, agentKey, now),
  ]);
  const deadlines = [messages.nextDeadline, requests.nextDeadline].filter((d): d is Date => d !== null);
  const nextDeadline = deadlines.length > 0 ? new Date(Math.min(...deadlines.map((d) => d.getTime()))) : null;
  return { count: messages.count + requests.count, nextDeadline };
}

function overCap(
  agentKey: string,
  count: number,
  max: number,
  nextDeadline: Date | null,
  now: Date,
): AppError {
  return new AppError(
    "rate_limited",
    `agent '${agentKey}' has ${count} items waiting for approval (approvals.max_pending_per_agent is ${max}); retry once one is decided or expires`,
    { headers: { "Retry-After": String(retryAfterSeconds(nextDeadline, now)) } },
  );
}

/**
 * Inside the transaction that holds a new item (already written, or about to be with `adding`):
 * takes the agent's hold lock, so concurrent holds are counted one after another, and throws 429
 * when the agent would hold more than the cap. The caller's transaction then rolls back.
 */
export async function assertAgentMayHold(
  tx: Transaction,
  deps: CapDeps,
  agentKey: string,
  options: { adding: 0 | 1 },
): Promise<void> {
  await lockAgentHolds(tx, agentKey);
  const now = deps.now();
  const max = deps.config.approvals.max_pending_per_agent;
  const { count, nextDeadline } = await waitingItems(tx, agentKey, now);
  if (count + options.adding > max)
    throw overCap(agentKey, count + options.adding - 1, max, nextDeadline, now);
}

/**
 * For events from an agent (accepted before anything is decided): refused while the agent is at
 * its cap, since any of its events may hold a message. No lock: events are not held items.
 */
export async function assertAgentBelowHoldCap(db: Database, deps: CapDeps, agentKey: string): Promise<void> {
  const now = deps.now();
  const max = deps.config.approvals.max_pending_per_agent;
  const { count, nextDeadline } = await waitingItems(db, agentKey, now);
  if (count >= max) throw overCap(agentKey, count, max, nextDeadline, now);
}
