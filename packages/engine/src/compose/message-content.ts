import { type RenderContext, type RenderedContent, type RenderOutcome, type RenderRequest } from "@svc/core";
import { channelProviders, type SvcConfig } from "@svc/config";
import type { TemplateRow } from "@svc/store";
import { renderPool } from "../rendering/render-pool";
import { templateDefinition } from "../shared/template-definition";

// Stored `content` of a message: the rendering for the first reachable channel (what the API
// shows), plus `variants` for each other reachable channel whose rendering differs because the
// template's locale has overrides for it (or it is e-mail HTML). Delivery on channel `c` uses
// `variants[c]` when present, else the top-level fields: contentForChannel() does exactly that.

export interface MessageContent extends RenderedContent {
  /** The template locale that was used (person's, its language, or the default). */
  locale: string;
  /** The channel the top-level fields were rendered for. */
  channel: string | null;
  variants?: Record<string, RenderedContent>;
}

/** The fields to hand to the provider of `channel`. */
export function contentForChannel(content: MessageContent, channel: string): RenderedContent {
  const variant =
    content.variants && Object.hasOwn(content.variants, channel) ? content.variants[channel] : undefined;
  const { title, body, url, thread } = variant ?? content;
  return { title, body, url, thread };
}

/** Channels whose provider is SMTP get an autoescaped HTML body (docs/templates.md, "Escaping"). */
export function isEmailChannel(config: Pick<SvcConfig, "channels">, channel: string): boolean {
  const settings = Object.hasOwn(config.channels, channel) ? config.channels[channel] : undefined;
  return settings !== undefined && channelProviders(settings).includes("smtp");
}

export interface ContentRendererInput {
  config: SvcConfig;
  /** Null when the template does not exist: the message fails with `template_error: no template '<key>'`. */
  template: TemplateRow | null;
  templateKey: string;
  context: RenderContext;
}

/**
 * The pipeline's `render` callback: renders for every reachable channel, fails on the first error.
 * All channels go to a render thread in one task (rendering/render-pool.ts).
 */
export function contentRenderer(input: ContentRendererInput) {
  return async (request: RenderRequest): Promise<RenderOutcome<MessageContent>> => {
    if (!input.template) return { ok: false, error: `no template '${input.templateKey}'` };
    const definition = templateDefinition(input.template);
    const channels = request.channels.length > 0 ? request.channels : [null];
    const results = await renderPool(input.config).renderTemplates(
      channels.map((channel) => ({
        template: definition,
        locale: request.locale,
        channel,
        context: input.context,
        html: channel !== null && isEmailChannel(input.config, channel),
      })),
    );
    let first: MessageContent | null = null;
    const variants: Record<string, RenderedContent> = {};
    for (const [index, result] of results.entries()) {
      if (!result.ok) return { ok: false, error: result.detail };
      const channel = channels[index] ?? null;
      if (!first) first = { ...result.content, locale: result.locale, channel };
      else if (channel !== null && !sameContent(first, result.content)) variants[channel] = result.content;
    }
    const content = first as MessageContent;
    return { ok: true, content: Object.keys(variants).length > 0 ? { ...content, variants } : content };
  };
}

function sameContent(a: RenderedContent, b: RenderedContent): boolean {
  return a.title === b.title && a.body === b.body && a.url === b.url && a.thread === b.thread;
}
