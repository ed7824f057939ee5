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

/**
 * The same for every string inside a JSON value (a message's `data`): a copy with the placeholders
 * filled, or the value itself when nothing in it changed.
 */
export function fillLinkPlaceholdersIn<T>(
  value: T,
  urls: Partial<Record<LinkPlaceholderName, string | null>>,
): T {
  if (typeof value === "string") return fillLinkPlaceholders(value, urls) as T;
  if (Array.isArray(value)) {
    const filled = value.map((item: unknown) => fillLinkPlaceholdersIn(item, urls));
    return (filled.some((item, i) => item !== value[i]) ? filled : value) as T;
  }
  if (value !== null && typeof value === "object") {
    let changed = false;
    const filled = Object.fromEntries(
      Object.entries(value).map(([key, item]) => {
        const next = fillLinkPlaceholdersIn(item as unknown, urls);
        if (next !== item) changed = true;
        return [key, next];
      }),
    );
    return (changed ? filled : value) as T;
  }
  return value;
}

export function hasLinkPlaceholders(text: string): boolean {
  return new RegExp(PLACEHOLDER.source).test(text);
}
