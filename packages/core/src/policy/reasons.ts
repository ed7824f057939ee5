// The one source of message `status_reason` strings (docs/policy.md, "Reason codes"). Fixed reasons
// are constants; reasons with detail are built by the formatters below, so every writer spells them
// alike.
import { formatPeriod } from "../time/period";

export const REASON = {
  duplicate: "duplicate",
  unsubscribed: "unsubscribed",
  consentExpired: "consent_expired",
  noReachableChannel: "no_reachable_channel",
  cooldown: "cooldown",
  expired: "expired",
  fatigue: "fatigue",
  agentNotAllowed: "agent_not_allowed",
  agentDeleted: "agent_deleted",
  rejected: "rejected",
  cancelledViaApi: "cancelled via API",
  broadcastCancelled: "broadcast cancelled",
} as const;

/** Screening detail when the model could not be reached and `on_error = hold`. */
export const SCREENING_UNAVAILABLE = "screening unavailable";

/** The code before any `: detail`, for grouping and filtering. */
export const REASON_CODE = {
  ...REASON,
  compliance: "compliance",
  frequencyCap: "frequency_cap",
  agentBudget: "agent_budget",
  templateError: "template_error",
  screening: "screening",
  gaveUp: "gave up",
} as const;
export type ReasonCode = (typeof REASON_CODE)[keyof typeof REASON_CODE];

/** `frequency_cap: 2 per P1D` */
export function frequencyCapReason(limit: number, periodSeconds: number): string {
  return `${REASON_CODE.frequencyCap}: ${limit} per ${formatPeriod(periodSeconds)}`;
}

/** `agent_budget: 5 per P1D` */
export function agentBudgetReason(limit: number, periodSeconds: number): string {
  return `${REASON_CODE.agentBudget}: ${limit} per ${formatPeriod(periodSeconds)}`;
}

/** `compliance: 3 marketing texts per 24 hours (Florida)` */
export function complianceCapReason(cap: number, source: string): string {
  return `${REASON_CODE.compliance}: ${cap} marketing texts per 24 hours (${source})`;
}

/** `template_error: no usable locale` */
export function templateErrorReason(detail: string): string {
  return `${REASON_CODE.templateError}: ${oneLine(detail) || "render failed"}`;
}

/** `gave up: <error>` */
export function gaveUpReason(error: string): string {
  return `${REASON_CODE.gaveUp}: ${oneLine(error) || "unknown error"}`;
}

/** `rejected`, or `rejected: <reason>` when the reviewer gave one. */
export function rejectedReason(reason?: string | null): string {
  const text = oneLine(reason ?? "");
  return text ? `${REASON.rejected}: ${text}` : REASON.rejected;
}

/** `screening: pressure, deception`, or `screening: screening unavailable` via SCREENING_UNAVAILABLE. */
export function screeningReason(risks: readonly string[]): string {
  if (risks.length === 0) throw new RangeError("screeningReason needs at least one risk");
  return `${REASON_CODE.screening}: ${risks.join(", ")}`;
}

/** Every channel failed permanently: one entry per channel, joined by `; ` (docs/policy.md). */
export function providerErrorsReason(errors: readonly string[]): string {
  return errors.map(oneLine).join("; ");
}

/** `frequency_cap: 2 per P1D` → `frequency_cap`; provider error lists have no code (null). */
export function reasonCode(reason: string | null): ReasonCode | null {
  if (reason === null) return null;
  const codes = Object.values(REASON_CODE) as string[];
  if (codes.includes(reason)) return reason as ReasonCode;
  const head = reason.split(":", 1)[0] ?? "";
  return codes.includes(head) && head !== reason ? (head as ReasonCode) : null;
}

// Reasons are single-line labels; provider and template errors may carry newlines.
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
