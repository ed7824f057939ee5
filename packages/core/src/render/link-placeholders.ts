import { escapeHtml } from "../text/escape-html";

// Stored content never holds a raw link token (docs/templates.md, "Variables"): templates see these
// placeholders, and delivery swaps in the real URLs only in what it hands to the provider.
// The form survives HTML autoescaping and Markdown unchanged.

export const LINK_PLACEHOLDER_NAMES = ["preferences_url", "unsubscribe_url", "review_url"] as const;
export type LinkPlaceholderName = (typeof LINK_PLACEHOLDER_NAMES)[number];

const PLACEHOLDER = /\[\[svc:([a-z_]+)\]\]/g;

export function linkPlaceholder(name: LinkPlaceholderName): string {
  return `[[svc:${name}]]`;
}

/**
 * Replaces placeholders with the given URLs; a placeholder without a URL (no public URL
 * configured, an agent's view) becomes empty rather than leaking the marker. `html` escapes the
 * URL for an HTML body.
 */
export function fillLinkPlaceholders(
  text: string,
  urls: Partial<Record<LinkPlaceholderName, string | null>>,
  options: { html?: boolean } = {},
): string {
  return text.replace(PLACEHOLDER, (_match, name: string) => {
    const url = Object.hasOwn(urls, name) ? urls[name as LinkPlaceholderName] : undefined;
    if (!url) return "";
    return options.html ? escapeHtml(url) : url;
  });
}

export function hasLinkPlaceholders(text: string): boolean {
  return new RegExp(PLACEHOLDER.source).test(text);
}
