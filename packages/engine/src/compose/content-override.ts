import type { PolicyContext, RenderedContent } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import type { ContentOverride } from "./compose-types";
import { escapeHtml } from "@svc/core";
import { isEmailChannel, type MessageContent } from "./message-content";

type Render = PolicyContext<MessageContent>["render"];

/**
 * ComposeRequest.contentOverride (a digest's AI summary): the override's text on every reachable
 * channel, HTML-escaped where the channel's body is e-mail HTML (so such a channel may gain a
 * variant); a template that fails to render still fails the message.
 */
export function withContentOverride(
  config: SvcConfig,
  render: Render,
  override: ContentOverride | null,
): Render {
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
