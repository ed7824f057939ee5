// What the policy pipeline reads (PolicyContext, loaded by the caller inside the recipient's
// lock), what the steps pass along (PolicyDraft) and what it decides (PolicyDecision).
import type { DailyWindow } from "../time/quiet-hours";
import type { UnknownStatePolicy } from "../time/texting-hours";
import type { FatigueSettings, FatigueState } from "./fatigue";
import type { Importance } from "./importance";
import type { DecidedStatus } from "./message-status";

export interface FrequencyCap {
  limit: number;
  /** Parsed with parsePeriod. */
  periodSeconds: number;
}

export interface PolicyCategory {
  key: string;
  frequencyCaps: readonly FrequencyCap[];
  respectQuietHours: boolean;
  allowUnsubscribe: boolean;
  marketing: boolean;
  fatigue: FatigueSettings | null;
}

export interface PolicyAgent {
  key: string;
  frequencyCaps: readonly FrequencyCap[];
  maxImportance: Importance;
  approvalTtlSeconds: number;
}

export interface PolicyRule {
  key: string;
  delaySeconds: number;
  cooldownSeconds: number | null;
}

export interface PolicyMessage {
  /** Generated before deciding, so fatigue can name its probe. */
  id: string;
  category: string;
  /** As requested (rule importance or direct send); agents' ceiling is applied by the pipeline. */
  importance: Importance;
  /** Planned channels, in fallback order. */
  channels: readonly string[];
  /** Earliest send time before delay and quiet hours (broadcast `send_at`); null means `now`. */
  dueAt: Date | null;
  expiresAt: Date | null;
  rule: PolicyRule | null;
  agent: PolicyAgent | null;
  /** Id of an earlier message with the same idempotency/dedup key (docs/policy.md, "Duplicates"). */
  duplicateOf: string | null;
  /** Re-check of a message a reviewer approved: no second rule delay, and no second approval. */
  approved: boolean;
}

export interface PolicyAddress {
  channel: string;
  value: string;
  enabled: boolean;
}

export interface PolicyRecipient {
  timezone: string | null;
  locale: string | null;
  region: string | null;
  /** The person's own window; overrides the configured default (equal start/end disables). */
  quietHours: DailyWindow | null;
  unsubscribedCategories: readonly string[];
  /** Include text channels muted by a STOP, also one recorded as a hashed number after erasure. */
  mutedChannels: readonly string[];
  addresses: readonly PolicyAddress[];
  /** Category key → when the recorded opt-in expires (docs/preferences.md, "Opt-in records"). */
  consentExpiresAt: Readonly<Record<string, Date>>;
}

export interface PolicyConfig {
  /** Names of configured channels (`channels.<name>`). */
  channels: readonly string[];
  /** Configured channels whose provider is `inbox`: reachable without an address (channel-addresses.ts). */
  inboxChannels: readonly string[];
  quietHours: DailyWindow;
  defaultTimezone: string;
  compliance: {
    usTextingRules: boolean;
    smsChannels: readonly string[];
    unknownState: UnknownStatePolicy;
  };
}

/**
 * `send_at` of the messages that count, loaded by the caller, excluding the message being
 * decided. Caps are measured on both sides of the new send time, which is only known inside the
 * pipeline, so load every counting message with send_at >= (now - longest period); later ones
 * count too. Statuses: CAP_COUNTING_STATUSES, or AGENT_BUDGET_COUNTING_STATUSES for `agent`.
 */
export interface PolicyHistory {
  /** This recipient, this category. */
  category: readonly Date[];
  /** This recipient, this rule (cooldown). Empty without a rule. */
  rule: readonly Date[];
  /** This recipient, this agent, any category. Empty without an agent. */
  agent: readonly Date[];
  /** This recipient, categories with `marketing: true`, planned on a channel of `compliance.sms_channels`. */
  marketingTexts: readonly Date[];
}

export interface RenderRequest {
  locale: string | null;
  channels: readonly string[];
  importance: Importance;
  sendAt: Date;
}

export type RenderOutcome<C> = { ok: true; content: C } | { ok: false; error: string };

/** What an agent's approval condition may look at besides what the caller already holds. */
export interface ApprovalView {
  category: string;
  importance: Importance;
  channels: readonly string[];
}

export interface PolicyContext<C = unknown> {
  now: Date;
  message: PolicyMessage;
  category: PolicyCategory;
  recipient: PolicyRecipient;
  config: PolicyConfig;
  history: PolicyHistory;
  /** Stored fatigue state of (recipient, category); null when none was stored yet. */
  fatigue: FatigueState | null;
  /** Renders the template in the recipient's locale (implemented in core/render). */
  render: (request: RenderRequest) => RenderOutcome<C> | Promise<RenderOutcome<C>>;
  /** The agent's approval condition (JSON Logic, evaluated by the caller). Absent: never holds. */
  requiresApproval?: (view: ApprovalView) => boolean | Promise<boolean>;
}

/** The message as the steps shape it. */
export interface PolicyDraft<C = unknown> {
  importance: Importance;
  claimedImportance: Importance;
  channels: readonly string[];
  sendAt: Date;
  content: C | null;
  /** Fatigue state to store whatever the outcome (a pause that starts). */
  fatigueAlways: FatigueState | null;
  /** Fatigue state to store when the message ends queued (counter, probe). */
  fatigueIfQueued: FatigueState | null;
}

export type DraftPatch = Partial<PolicyDraft>;

export type StepOutcome =
  | { kind: "pass" }
  | { kind: "drop"; status: "suppressed" | "failed"; reason: string; patch?: DraftPatch }
  | { kind: "defer"; until: Date }
  | { kind: "change"; patch: DraftPatch }
  | { kind: "hold"; reason: string | null };

export const pass = (): StepOutcome => ({ kind: "pass" });
export const drop = (status: "suppressed" | "failed", reason: string, patch?: DraftPatch): StepOutcome =>
  patch ? { kind: "drop", status, reason, patch } : { kind: "drop", status, reason };
export const defer = (until: Date): StepOutcome => ({ kind: "defer", until });
export const change = (patch: DraftPatch): StepOutcome => ({ kind: "change", patch });
export const hold = (reason: string | null = null): StepOutcome => ({ kind: "hold", reason });

export interface PolicyStep {
  name: string;
  run(ctx: PolicyContext, draft: Readonly<PolicyDraft>): StepOutcome | Promise<StepOutcome>;
}

export interface StepTrace {
  step: string;
  outcome: StepOutcome["kind"];
  /** The reason of a drop or hold, the ISO time of a defer, the changed fields of a change. */
  detail?: string;
}

export interface PolicyDecision<C = unknown> {
  status: DecidedStatus;
  statusReason: string | null;
  sendAt: Date;
  importance: Importance;
  claimedImportance: Importance;
  /** Reachable channels in planned order (the planned list when a step before reachability stopped). */
  channels: string[];
  content: C | null;
  /** Fatigue state to store for (recipient, category); null leaves the stored state as it is. */
  fatigue: FatigueState | null;
  /** Review deadline of a held message (now + the agent's approval_ttl_seconds). */
  approvalExpiresAt: Date | null;
  duplicateOf: string | null;
  /** Every step that ran, in order, for explaining the decision. */
  steps: StepTrace[];
}
