import type { RenderContext } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import type { TemplateRow } from "@svc/store";
import type { ContentOverride } from "../compose/compose-types";
import type { RenderPool } from "../rendering/render-pool";
import { templateDefinition } from "../shared/template-definition";
import { chatComplete, type AiSettings, type ChatMessage } from "./ai-client";
import { missingToken } from "./preserved-tokens";

// Smart mode (docs/digests.md): the template renders first as the baseline, then the AI rewrites its
// title and body with the grouped updates as context. Only the values of `summary_fields` (plus
// the template's `ai_attributes`) of each event are shared; nothing about the person. Any failure
// keeps the template text. Runs outside every transaction: it waits on the network.

export type DigestSummary = { source: "ai" } | { source: "template"; reason: string };

export interface SummarizeInput {
  /** Null when `ai.enabled` is off: the template text is sent. */
  settings: AiSettings | null;
  template: TemplateRow | null;
  locale: string | null;
  /** The first planned channel, whose rendering is the baseline. */
  channel: string | null;
  /** The same variables the message renders with. */
  context: RenderContext;
  /** Kept events' data, oldest first. */
  events: unknown[];
  /** Rule's `summary_fields`; the template's `ai_attributes` are added. */
  summaryFields: string[];
  /** Where the baseline renders (rendering/render-pool.ts). */
  renderer: RenderPool;
}

const SYSTEM_PROMPT = [
  "You rewrite the draft of a notification that groups several updates into one short, clear summary.",
  'Answer with one JSON object {"title": string, "body": string} and nothing else.',
  "Keep every number and every link of the draft exactly as written, and write in the draft's language.",
  "Use only the draft and the updates given; invent nothing.",
].join(" ");

export function aiSettingsOf(config: SvcConfig): AiSettings | null {
  const { ai } = config;
  if (!ai.enabled || ai.base_url === null || ai.model === null) return null;
  return {
    baseUrl: ai.base_url,
    model: ai.model,
    apiKey: config.secrets.aiApiKey,
    timeoutMs: ai.timeout_ms,
    maxTokens: ai.max_tokens,
  };
}

/** Only these keys of each event's data reach the AI. */
function sharedUpdates(events: unknown[], fields: readonly string[]): Record<string, unknown>[] {
  return events.map((data) => {
    const shared: Record<string, unknown> = {};
    if (typeof data !== "object" || data === null || Array.isArray(data)) return shared;
    for (const field of fields)
      if (Object.hasOwn(data, field)) shared[field] = (data as Record<string, unknown>)[field];
    return shared;
  });
}

/** The content override for compose: the AI text when it passed every check, else the template's. */
export async function summarizeDigest(
  input: SummarizeInput,
): Promise<{ override: ContentOverride; summary: DigestSummary }> {
  const summary = await rewrite(input);
  if (summary.source === "template") {
    return {
      summary,
      override: { text: null, extra: { summary: "template", summary_fallback: summary.reason } },
    };
  }
  return { summary: { source: "ai" }, override: { text: summary.text, extra: { summary: "ai" } } };
}

type Rewrite =
  { source: "ai"; text: { title: string; body: string } } | { source: "template"; reason: string };

async function rewrite(input: SummarizeInput): Promise<Rewrite> {
  const fallback = (reason: string): Rewrite => ({ source: "template", reason });
  if (!input.settings) return fallback("ai disabled");
  if (!input.template) return fallback("no template");
  const baseline = await input.renderer.renderTemplate({
    template: templateDefinition(input.template),
    locale: input.locale,
    channel: input.channel,
    context: input.context,
  });
  if (!baseline.ok) return fallback("template_error");

  const fields = [...new Set([...input.summaryFields, ...input.template.ai_attributes])];
  const draft = { title: baseline.content.title, body: baseline.content.body };
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: JSON.stringify({ draft, updates: sharedUpdates(input.events, fields) }) },
  ];
  const answer = await chatComplete(input.settings, messages);
  if (!answer.ok) return fallback(answer.reason);
  const text = parseAnswer(answer.text);
  if (!text) return fallback("invalid answer");
  const missing = missingToken(`${draft.title}\n${draft.body}`, `${text.title}\n${text.body}`);
  if (missing !== null) return fallback(`lost ${missing}`);
  return { source: "ai", text };
}

// Models like to wrap JSON in a Markdown fence; accept that, nothing looser. Text holding U+0000
// is no answer either: no message could store it (Postgres text cannot hold that character).
function parseAnswer(text: string): { title: string; body: string } | null {
  const unfenced = text.replace(/^```(?:json)?\s*/i, "").replace(/\s*```$/, "");
  try {
    const parsed = JSON.parse(unfenced) as { title?: unknown; body?: unknown };
    const { title, body } = parsed ?? {};
    if (typeof title !== "string" || typeof body !== "string" || title.trim() === "" || body.trim() === "")
      return null;
    if (title.includes("\u0000") || body.includes("\u0000")) return null;
    return { title: title.trim(), body: body.trim() };
  } catch {
    return null;
  }
}
