// Message statuses (docs/messages.md, "Message states") and which of them count towards limits
// (docs/policy.md, "Limits").

export const MESSAGE_STATUSES = [
  "queued",
  "sending",
  "pending_approval",
  "sent",
  "delivered",
  "failed",
  "suppressed",
  "cancelled",
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const FINAL_MESSAGE_STATUSES: readonly MessageStatus[] = [
  "sent",
  "delivered",
  "failed",
  "suppressed",
  "cancelled",
];

/** What composition can decide: the policy pipeline never yields sending/sent/delivered/cancelled. */
export type DecidedStatus = "queued" | "suppressed" | "failed" | "pending_approval";

/** Category caps, cooldowns and the compliance cap count these. */
export const CAP_COUNTING_STATUSES: readonly MessageStatus[] = ["queued", "sending", "sent", "delivered"];

/** Agent budgets also count held messages (docs/agents.md, "Budgets"). */
export const AGENT_BUDGET_COUNTING_STATUSES: readonly MessageStatus[] = [
  ...CAP_COUNTING_STATUSES,
  "pending_approval",
];

export function isMessageStatus(value: unknown): value is MessageStatus {
  return typeof value === "string" && (MESSAGE_STATUSES as readonly string[]).includes(value);
}

export function isFinalStatus(status: MessageStatus): boolean {
  return FINAL_MESSAGE_STATUSES.includes(status);
}
