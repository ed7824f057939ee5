import {
  formatPeriod,
  isTimeOfDay,
  isWeekdayName,
  tryParsePeriod,
  invalidPeriodMessage,
  validateCondition,
  validateEventPattern,
  type Importance,
  type ValidationIssue,
} from "@svc/core";
import type { RuleFields } from "@svc/store";
import { validationError } from "../shared/validation";

/** Digest policy of a rule (docs/digests.md, "The digest policy"). */
interface DigestPolicyInput {
  window?: string | number;
  deliver_at?: string;
  days?: string[];
  key?: string;
  send_after?: number;
  max_items?: number;
  summarize?: boolean;
  summary_fields?: string[];
}

export interface StoredDigestPolicy {
  window: number | null;
  deliver_at: string | null;
  days: string[] | null;
  key: string | null;
  send_after: number | null;
  max_items: number;
  summarize: boolean;
  summary_fields: string[];
}

export interface RuleInput {
  key?: string;
  name?: string;
  event?: string;
  template?: string;
  category?: string;
  channels?: string[];
  importance?: Importance;
  digest?: DigestPolicyInput | null;
  condition?: unknown;
  delay?: string | number | null;
  cooldown_seconds?: number | null;
  expires_in?: string | number | null;
  rollout_percent?: number;
  priority?: number;
  stop_processing?: boolean;
  enabled?: boolean;
}

export const RULE_DEFAULTS = {
  name: "",
  importance: "normal",
  digest: null,
  condition: null,
  delay: null,
  cooldown_seconds: null,
  expires_in: null,
  rollout_percent: 100,
  priority: 0,
  stop_processing: false,
  enabled: true,
} as const satisfies Partial<RuleInput>;

const DIGEST_WINDOW_MAX = 7 * 86400;

export interface RuleValidationOptions {
  aiEnabled: boolean;
  /** Compiles a template string; returns an error detail or null. */
  checkTemplateString: (source: string) => string | null;
}

function validateDigest(
  input: DigestPolicyInput,
  options: RuleValidationOptions,
  issues: ValidationIssue[],
): StoredDigestPolicy {
  const loc = ["body", "digest"];
  const hasWindow = input.window !== undefined;
  const hasDeliverAt = input.deliver_at !== undefined;
  if (hasWindow === hasDeliverAt)
    issues.push({ loc, msg: "set exactly one of window and deliver_at", type: "value_error" });
  let window: number | null = null;
  if (hasWindow) {
    window = tryParsePeriod(input.window);
    if (window === null || window < 1 || window > DIGEST_WINDOW_MAX) {
      issues.push({
        loc: [...loc, "window"],
        msg: "must be a period from 1 second to 7 days",
        type: "value_error",
      });
    }
  }
  if (hasDeliverAt && !isTimeOfDay(input.deliver_at)) {
    issues.push({ loc: [...loc, "deliver_at"], msg: "expected a time of day HH:MM", type: "value_error" });
  }
  if (input.days !== undefined) {
    if (!hasDeliverAt)
      issues.push({ loc: [...loc, "days"], msg: "days go with deliver_at", type: "value_error" });
    input.days.forEach((day, i) => {
      if (!isWeekdayName(day))
        issues.push({
          loc: [...loc, "days", i],
          msg: "expected one of mon, tue, wed, thu, fri, sat, sun",
          type: "enum",
        });
    });
  }
  if (input.key !== undefined) {
    const error = options.checkTemplateString(input.key);
    if (error) issues.push({ loc: [...loc, "key"], msg: error, type: "template_error" });
  }
  if (input.summarize) {
    if (!input.summary_fields || input.summary_fields.length === 0) {
      issues.push({ loc: [...loc, "summary_fields"], msg: "required with summarize", type: "missing" });
    }
    if (!options.aiEnabled)
      issues.push({
        loc: [...loc, "summarize"],
        msg: "smart mode needs ai.enabled in the configuration",
        type: "value_error",
      });
  }
  return {
    window,
    deliver_at: input.deliver_at ?? null,
    days: input.days ?? null,
    key: input.key ?? null,
    send_after: input.send_after ?? null,
    max_items: input.max_items ?? 50,
    summarize: input.summarize ?? false,
    summary_fields: input.summary_fields ?? [],
  };
}

function period(
  value: string | number | null | undefined,
  field: string,
  issues: ValidationIssue[],
): number | null | undefined {
  if (value === undefined || value === null) return value;
  const seconds = tryParsePeriod(value);
  if (seconds === null)
    issues.push({
      loc: ["body", field],
      msg: invalidPeriodMessage(value, "expected an ISO 8601 duration (PT1H, P1D) or a number of seconds"),
      type: "value_error",
    });
  return seconds;
}

/** Checks what OpenAPI cannot and maps the API body onto the rules table. */
export function ruleData(input: RuleInput, options: RuleValidationOptions): RuleFields {
  const issues: ValidationIssue[] = [];
  const data: RuleFields = {};
  for (const field of ["name", "template", "category"] as const) {
    if (input[field] !== undefined) data[field] = input[field];
  }
  if (input.importance !== undefined) data.importance = input.importance;
  if (input.cooldown_seconds !== undefined) data.cooldown_seconds = input.cooldown_seconds;
  for (const field of ["rollout_percent", "priority"] as const) {
    if (input[field] !== undefined) data[field] = input[field];
  }
  for (const field of ["stop_processing", "enabled"] as const) {
    if (input[field] !== undefined) data[field] = input[field];
  }
  if (input.event !== undefined) {
    const check = validateEventPattern(input.event);
    if (!check.ok)
      issues.push({
        loc: ["body", "event"],
        msg: check.detail ?? "invalid event pattern",
        type: "value_error",
      });
    data.event = input.event;
  }
  if (input.channels !== undefined) data.channels = [...new Set(input.channels)];
  if (input.condition !== undefined) {
    if (input.condition !== null) {
      const check = validateCondition(input.condition);
      if (!check.ok)
        issues.push({ loc: ["body", "condition", ...check.loc], msg: check.detail, type: "value_error" });
    }
    data.condition = input.condition;
  }
  const delay = period(input.delay, "delay", issues);
  if (delay !== undefined) data.delay_seconds = delay;
  const expiresIn = period(input.expires_in, "expires_in", issues);
  if (expiresIn !== undefined) data.expires_in_seconds = expiresIn;
  if (input.digest !== undefined) {
    data.digest = input.digest === null ? null : validateDigest(input.digest, options, issues);
  }
  if (issues.length > 0) throw validationError(issues);
  return data;
}

export function serializeDigestPolicy(policy: StoredDigestPolicy | null) {
  if (!policy) return null;
  return {
    ...(policy.window !== null ? { window: formatPeriod(policy.window) } : {}),
    ...(policy.deliver_at !== null ? { deliver_at: policy.deliver_at } : {}),
    ...(policy.days !== null ? { days: policy.days } : {}),
    ...(policy.key !== null ? { key: policy.key } : {}),
    ...(policy.send_after !== null ? { send_after: policy.send_after } : {}),
    max_items: policy.max_items,
    summarize: policy.summarize,
    summary_fields: policy.summary_fields,
  };
}
