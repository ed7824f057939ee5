import {
  evaluateCondition,
  type DailyWindow,
  type FatigueState,
  type FrequencyCap,
  type PolicyContext,
  type PolicyHistory,
  type RenderContext,
} from "@svc/core";
import { inboxChannelNames, type SvcConfig } from "@svc/config";
import type {
  AgentRow,
  CategoryRow,
  FatigueStateRow,
  RecipientWithPolicyRows,
  TemplateRow,
} from "@svc/store";
import { ComposeReferenceError } from "./compose-errors";
import type { ComposeRequest } from "./compose-types";
import type { CompositionRows } from "./composition-rows";
import { withContentOverride } from "./content-override";
import { contentRenderer, type MessageContent } from "./message-content";

// Rows → PolicyContext: everything the pure pipeline reads, built from rows the caller read inside
// its transaction while holding the recipient's lock (so counts cannot change under it). Pure: no
// I/O here, so it is tested without a database.

export interface LoadedComposition {
  ctx: PolicyContext<MessageContent>;
  recipient: RecipientWithPolicyRows;
  category: CategoryRow;
  agent: AgentRow | null;
  template: TemplateRow | null;
}

export interface PolicyContextInput {
  config: SvcConfig;
  now: Date;
  messageId: string;
  request: ComposeRequest;
  rows: CompositionRows;
  history: PolicyHistory;
  /** Id of an earlier message with the same dedup or idempotency key (a dry run shows `duplicate`). */
  duplicateOf: string | null;
}

/** The rows a composition cannot do without; ComposeReferenceError for a missing one (or a deleted agent). */
export function assertReferences(request: ComposeRequest, rows: CompositionRows) {
  const { recipient, category, agent } = rows;
  if (!recipient) throw new ComposeReferenceError("recipient", request.recipientId);
  if (!category) throw new ComposeReferenceError("category", request.category);
  if (request.agentKey && (!agent || agent.deleted_at))
    throw new ComposeReferenceError("agent", request.agentKey);
  return { recipient, category, agent };
}

/** Throws ComposeReferenceError like assertReferences. */
export function policyContextOf(input: PolicyContextInput): LoadedComposition {
  const { config, now, request, rows } = input;
  const { recipient, category, agent } = assertReferences(request, rows);
  const { template } = rows;

  const fatigue = category.fatigue as { after: number; pause: number } | null;
  const recipientView = {
    external_id: recipient.external_id,
    locale: recipient.locale,
    timezone: recipient.timezone,
    region: recipient.region,
    attributes: (recipient.attributes ?? {}) as Record<string, unknown>,
  };
  const renderContext: RenderContext = {
    data: request.data,
    recipient: recipientView,
    event: request.event
      ? { id: request.event.id, name: request.event.name, created_at: request.event.created_at.toISOString() }
      : null,
  };

  const ctx: PolicyContext<MessageContent> = {
    now,
    message: {
      id: input.messageId,
      category: category.key,
      importance: request.importance,
      channels: request.channels,
      dueAt: request.dueAt ?? null,
      expiresAt: expiresAtOf(request, now),
      rule: request.rule
        ? {
            key: request.rule.key,
            delaySeconds: request.rule.delaySeconds ?? 0,
            cooldownSeconds: request.rule.cooldownSeconds,
          }
        : null,
      agent: agent
        ? {
            key: agent.key,
            frequencyCaps: capsOf(agent.frequency_caps),
            maxImportance: agent.max_importance,
            approvalTtlSeconds: agent.approval_ttl_seconds,
          }
        : null,
      duplicateOf: input.duplicateOf,
      approved: false,
    },
    category: {
      key: category.key,
      frequencyCaps: capsOf(category.frequency_caps),
      respectQuietHours: category.respect_quiet_hours,
      allowUnsubscribe: category.allow_unsubscribe,
      marketing: category.marketing,
      fatigue: fatigue ? { after: fatigue.after, pauseSeconds: fatigue.pause } : null,
    },
    recipient: {
      timezone: recipient.timezone,
      locale: recipient.locale,
      region: recipient.region,
      quietHours: (recipient.quiet_hours as DailyWindow | null) ?? null,
      unsubscribedCategories: recipient.unsubscribed_categories,
      mutedChannels: recipient.muted_channels,
      addresses: recipient.addresses.map((a) => ({ channel: a.channel, value: a.value, enabled: a.enabled })),
      consentExpiresAt: Object.fromEntries(
        recipient.consents
          .filter((c) => c.expires_at !== null)
          .map((c) => [c.category, c.expires_at as Date]),
      ),
    },
    config: {
      channels: Object.keys(config.channels),
      inboxChannels: inboxChannelNames(config.channels),
      quietHours: config.policy.quiet_hours,
      defaultTimezone: config.policy.default_timezone,
      compliance: {
        usTextingRules: config.compliance.us_texting_rules,
        smsChannels: config.compliance.sms_channels,
        unknownState: config.compliance.unknown_state,
      },
    },
    history: input.history,
    fatigue: rows.fatigue ? fatigueStateOf(rows.fatigue) : null,
    render: withContentOverride(
      config,
      contentRenderer({ config, template, templateKey: request.template, context: renderContext }),
      request.contentOverride ?? null,
    ),
  };
  if (agent && agent.approval !== null) {
    // The condition sees {message, recipient, data} (docs/agents.md "Approval"). A condition that
    // cannot be evaluated holds the message: a person looks at it rather than it going out unchecked.
    ctx.requiresApproval = (view) => {
      const result = evaluateCondition(agent.approval, {
        message: {
          category: view.category,
          importance: view.importance,
          channels: view.channels,
          template: request.template,
        },
        recipient: { ...recipientView },
        data: request.data,
      });
      return result.ok ? result.value : true;
    };
  }
  return { ctx, recipient, category, agent, template };
}

/** Explicit `expiresAt` wins; else a rule's `expires_in` counts from the event (or now). */
function expiresAtOf(request: ComposeRequest, now: Date): Date | null {
  if (request.expiresAt) return request.expiresAt;
  const seconds = request.rule?.expiresInSeconds;
  if (!seconds) return null;
  const from = request.event?.created_at ?? now;
  return new Date(from.getTime() + seconds * 1000);
}

/** Stored caps `[{period (seconds), limit}]` as the pipeline reads them. */
export function capsOf(stored: unknown): FrequencyCap[] {
  return ((stored as { period: number; limit: number }[] | null) ?? []).map((cap) => ({
    limit: cap.limit,
    periodSeconds: cap.period,
  }));
}

function fatigueStateOf(row: FatigueStateRow): FatigueState {
  return {
    sentSinceEngagement: row.sent_since_engagement,
    pausedUntil: row.paused_until,
    probeMessageId: row.probe_message_id,
    probeSentAt: row.probe_sent_at,
    probeEngaged: false,
  };
}
