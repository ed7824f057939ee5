// Decisions on held items (docs/approvals.md): a held message (`pending_approval`) or an approval
// request (`pending`) can be decided once, before its deadline. Pure: the caller reads the row,
// asks here, then writes compare-and-set on the waiting status (so a race still has one winner).

export interface HeldItem {
  /** Still waiting for a decision (a held message: `pending_approval`; a request: `pending`). */
  waiting: boolean;
  /** The review deadline. */
  deadline: Date;
}

export type DecisionCheck =
  | { ok: true }
  /** Waiting, but the deadline passed: it expires now instead (409 `expired`, link 410). */
  | { ok: false; why: "expired" }
  /** Decided, cancelled or expired already (409 `Invalid state`, link 410). */
  | { ok: false; why: "not_waiting" };

export function checkDecision(item: HeldItem, now: Date): DecisionCheck {
  if (!item.waiting) return { ok: false, why: "not_waiting" };
  if (item.deadline.getTime() <= now.getTime()) return { ok: false, why: "expired" };
  return { ok: true };
}

/** An approval request reads as `expired` once its deadline passed, before any sweep writes it. */
export function approvalStatusAt<S extends string>(
  row: { status: S; expires_at: Date },
  now: Date,
): S | "expired" {
  return row.status === "pending" && row.expires_at.getTime() <= now.getTime() ? "expired" : row.status;
}

/**
 * Seconds until an agent over approvals.max_pending_per_agent may hold another item: until its
 * nearest deadline frees a place (at least 1; `fallback` when nothing it holds has a deadline).
 */
export function retryAfterSeconds(nextDeadline: Date | null, now: Date, fallback = 60): number {
  if (!nextDeadline) return fallback;
  return Math.max(1, Math.ceil((nextDeadline.getTime() - now.getTime()) / 1000));
}

/** Who decided, as stored: the key's name, or `link:<reviewer>` for a review link. */
export const linkDecider = (reviewer: string): string => `link:${reviewer}`;
