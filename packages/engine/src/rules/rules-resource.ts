import { formatPeriod } from "@svc/core";
import {
  cancelOpenDigestsOfRule,
  ruleRows,
  type RootDatabase,
  type RuleFields,
  type RuleRow,
} from "@svc/store";
import { keyedResource } from "../shared/keyed-resource";
import {
  RULE_DEFAULTS,
  ruleData,
  serializeDigestPolicy,
  type RuleInput,
  type RuleValidationOptions,
  type StoredDigestPolicy,
} from "./rule-input";

export function serializeRule(row: RuleRow) {
  return {
    key: row.key,
    name: row.name,
    event: row.event,
    template: row.template,
    category: row.category,
    channels: row.channels,
    importance: row.importance,
    digest: serializeDigestPolicy(row.digest as StoredDigestPolicy | null),
    condition: row.condition ?? null,
    delay: row.delay_seconds === null ? null : formatPeriod(row.delay_seconds),
    cooldown_seconds: row.cooldown_seconds,
    expires_in: row.expires_in_seconds === null ? null : formatPeriod(row.expires_in_seconds),
    rollout_percent: row.rollout_percent,
    priority: row.priority,
    stop_processing: row.stop_processing,
    enabled: row.enabled,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * Rules: admin CRUD. Disabling or deleting a rule cancels its open digests (docs/digests.md): done
 * here so no digest of a dead rule is ever sent, and checked again when a digest closes.
 */
export function rulesResource(
  { prisma, now }: { prisma: RootDatabase; now: () => Date },
  options: RuleValidationOptions,
) {
  const cancelOpenDigests = async (ruleKey: string, why: string) => {
    await cancelOpenDigestsOfRule(prisma, ruleKey, why, now());
  };
  return keyedResource<RuleRow, RuleInput, RuleFields, ReturnType<typeof serializeRule>>({
    noun: "rule",
    db: prisma,
    rows: ruleRows,
    toFields: async (input, full) => ruleData(full ? { ...RULE_DEFAULTS, ...input } : input, options),
    serialize: serializeRule,
    async afterWrite(row) {
      if (!row.enabled) await cancelOpenDigests(row.key, "rule disabled");
    },
    async remove(row) {
      await ruleRows.purge(prisma, row.key);
      await cancelOpenDigests(row.key, "rule deleted");
    },
  });
}
