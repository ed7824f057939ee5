import {
  AGENT_BUDGET_COUNTING_STATUSES,
  CAP_COUNTING_STATUSES,
  evaluateCondition,
  type DailyWindow,
  type FatigueState,
  type FrequencyCap,
  type PolicyContext,
  type PolicyHistory,
  type RenderContext,
  type RenderedContent,
} from "@svc/core";
import type { SvcConfig } from "@svc/config";
import type {
  AddressRow,
  AgentRow,
  CategoryRow,
  ConsentRow,
  FatigueStateRow,
  RecipientRow,
  TemplateRow,
  TransactionClient,
} from "@svc/store";
import { ComposeReferenceError } from "./compose-errors";
import type { ComposeRequest, ContentOverride } from "./compose-types";
import { contentRenderer, isEmailChannel, type MessageContent } from "./message-content";

// The "load" of load → decide → apply: everything the pure pipeline reads, fetched inside the
// caller's transaction while it holds the recipient's lock, so counts cannot change under us.

export interface LoadedComposition {
  ctx: PolicyContext<MessageContent>;
  recipient: RecipientRow;
  category: CategoryRow;
  agent: AgentRow | null;
  template: TemplateRow | null;
}

interface StoredCap {
  period: number;
  limit: number;
}

const DAY_SECONDS = 86_400;

/** Rows a caller already read (ingest reads them in one statement); loadPolicyContext skips those queries. */
export interface PreloadedComposition {
  recipient: RecipientWithPolicyRows | null;
  category: CategoryRow | null;
  template: TemplateRow | null;
  /** The request's agent row (null when the request has no agent or the agent row is gone). */
  agent: AgentRow | null;
  /** This recipient's fatigue state in the request's category. */
  fatigue: FatigueStateRow | null;
}

export type RecipientWithPolicyRows = RecipientRow & { addresses: AddressRow[]; consents: ConsentRow[] };

export async function loadPolicyContext(
  tx: TransactionClient,
  config: SvcConfig,
  now: Date,
  messageId: string,
  request: ComposeRequest,
  duplicateOf: string | null,
  preloaded?: PreloadedComposition,
): Promise<LoadedComposition> {
  const rows = preloaded ?? (await loadCompositionRows(tx, request));
  const { recipient, category, agent, template, fatigue: fatigueRow } = rows;
  if (!recipient) throw new ComposeReferenceError("recipient", request.recipientId);
  if (!category) throw new ComposeReferenceError("category", request.category);
  if (request.agentKey && (!agent || agent.deleted_at))
    throw new ComposeReferenceError("agent", request.agentKey);

  const categoryCaps = toCaps(category.frequency_caps);
  const agentCaps = agent ? toCaps(agent.frequency_caps) : [];
  const history = await loadHistory(
    tx,
    config,
    now,
    request,
    recipient.id,
    category,
    categoryCaps,
    agentCaps,
  );
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
      id: messageId,
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
            frequencyCaps: agentCaps,
            maxImportance: agent.max_importance,
            approvalTtlSeconds: agent.approval_ttl_seconds,
          }
        : null,
      duplicateOf,
      approved: false,
    },
    category: {
      key: category.key,
      frequencyCaps: categoryCaps,
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
      quietHours: config.policy.quiet_hours,
      defaultTimezone: config.policy.default_timezone,
      compliance: {
        usTextingRules: config.compliance.us_texting_rules,
        smsChannels: config.compliance.sms_channels,
        unknownState: config.compliance.unknown_state,
      },
    },
    history,
    fatigue: fatigueRow ? toFatigueState(fatigueRow) : null,
    render: withContentOverride(
      config,
      contentRenderer({ config, template, templateKey: request.template, context: renderContext }),
      request.contentOverride ?? null,
    ),
  };
  if (agent && agent.approval !== null) {
    // SPEC 2.1: the condition sees {message, recipient, data}. A condition that cannot be
    // evaluated holds the message: a person looks at it rather than it going out unchecked.
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

async function loadCompositionRows(
  tx: TransactionClient,
  request: ComposeRequest,
): Promise<PreloadedComposition> {
  const recipient = await tx.recipient.findUnique({
    where: { id: request.recipientId },
    include: { addresses: true, consents: true },
  });
  if (!recipient) return { recipient: null, category: null, template: null, agent: null, fatigue: null };
  const category = await tx.category.findUnique({ where: { key: request.category } });
  if (!category) return { recipient, category: null, template: null, agent: null, fatigue: null };
  const agent = request.agentKey ? await tx.agent.findUnique({ where: { key: request.agentKey } }) : null;
  const template = await tx.template.findUnique({ where: { key: request.template } });
  const fatigue = await tx.fatigueState.findUnique({
    where: { recipient_id_category: { recipient_id: recipient.id, category: category.key } },
  });
  return { recipient, category, agent, template, fatigue };
}

/** Explicit `expiresAt` wins; else a rule's `expires_in` counts from the event (or now). */
export function expiresAtOf(request: ComposeRequest, now: Date): Date | null {
  if (request.expiresAt) return request.expiresAt;
  const seconds = request.rule?.expiresInSeconds;
  if (!seconds) return null;
  const from = request.event?.created_at ?? now;
  return new Date(from.getTime() + seconds * 1000);
}

type Render = PolicyContext<MessageContent>["render"];

// ComposeRequest.contentOverride: the override's text on every reachable channel, HTML-escaped
// where the channel's body is e-mail HTML (so such a channel may gain a variant); a template that
// fails to render still fails the message.
function withContentOverride(config: SvcConfig, render: Render, override: ContentOverride | null): Render {
  if (!override) return render;
  return async (request) => {
    const result = await render(request);
    if (!result.ok || !override.text)
      return result.ok ? { ok: true, content: { ...result.content, ...override.extra } } : result;
    const text = override.text;
    const { variants: rendered, ...top } = result.content;
    const over = (base: RenderedContent, channel: string | null): RenderedContent => ({
      title: text.title,
      body: channel !== null && isEmailChannel(config, channel) ? escapeHtml(text.body) : text.body,
      url: base.url,
      thread: base.thread,
    });
    const content: MessageContent = { ...top, ...over(top, top.channel), ...override.extra };
    const variants: Record<string, RenderedContent> = {};
    for (const channel of request.channels) {
      if (channel === top.channel) continue;
      const variant = over(rendered && Object.hasOwn(rendered, channel) ? rendered[channel]! : top, channel);
      if (
        variant.title !== content.title ||
        variant.body !== content.body ||
        variant.url !== content.url ||
        variant.thread !== content.thread
      ) {
        variants[channel] = variant;
      }
    }
    if (Object.keys(variants).length > 0) content.variants = variants;
    return { ok: true, content };
  };
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

function toCaps(stored: unknown): FrequencyCap[] {
  return ((stored as StoredCap[] | null) ?? []).map((cap) => ({
    limit: cap.limit,
    periodSeconds: cap.period,
  }));
}

function toFatigueState(row: FatigueStateRow): FatigueState {
  return {
    sentSinceEngagement: row.sent_since_engagement,
    pausedUntil: row.paused_until,
    probeMessageId: row.probe_message_id,
    probeSentAt: row.probe_sent_at,
    probeEngaged: false,
  };
}

// One query for the four lists: every possibly counting message of this person with
// send_at >= now - the longest relevant period (and no upper bound: later ones count too).
async function loadHistory(
  tx: TransactionClient,
  config: SvcConfig,
  now: Date,
  request: ComposeRequest,
  recipientId: string,
  category: CategoryRow,
  categoryCaps: FrequencyCap[],
  agentCaps: FrequencyCap[],
): Promise<PolicyHistory> {
  const smsChannels = config.compliance.sms_channels;
  const textsMatter = config.compliance.us_texting_rules && category.marketing && smsChannels.length > 0;
  const marketingCategories = textsMatter
    ? (await tx.category.findMany({ where: { marketing: true }, select: { key: true } })).map((c) => c.key)
    : [];
  const cooldown = request.rule?.cooldownSeconds ?? 0;
  const longest = Math.max(
    0,
    ...categoryCaps.map((c) => c.periodSeconds),
    ...agentCaps.map((c) => c.periodSeconds),
    cooldown,
    textsMatter ? DAY_SECONDS : 0,
  );
  const empty: PolicyHistory = { category: [], rule: [], agent: [], marketingTexts: [] };
  if (longest === 0) return empty;

  const or: object[] = [{ category: category.key }];
  if (request.rule && cooldown > 0) or.push({ rule: request.rule.key });
  if (request.agentKey && agentCaps.length > 0) or.push({ agent_key: request.agentKey });
  if (textsMatter) or.push({ category: { in: marketingCategories }, channels: { hasSome: smsChannels } });
  const rows = await tx.message.findMany({
    where: {
      recipient_id: recipientId,
      send_at: { gte: new Date(now.getTime() - longest * 1000) },
      status: { in: [...AGENT_BUDGET_COUNTING_STATUSES] },
      OR: or,
    },
    select: { send_at: true, status: true, category: true, rule: true, agent_key: true, channels: true },
  });
  const counts = (status: string) => (CAP_COUNTING_STATUSES as readonly string[]).includes(status);
  return {
    category: rows.filter((r) => counts(r.status) && r.category === category.key).map((r) => r.send_at),
    rule: request.rule
      ? rows.filter((r) => counts(r.status) && r.rule === request.rule?.key).map((r) => r.send_at)
      : [],
    agent: request.agentKey ? rows.filter((r) => r.agent_key === request.agentKey).map((r) => r.send_at) : [],
    marketingTexts: rows
      .filter(
        (r) =>
          counts(r.status) &&
          marketingCategories.includes(r.category) &&
          r.channels.some((c) => smsChannels.includes(c)),
      )
      .map((r) => r.send_at),
  };
}
