import { formatSourceError, renderSource } from "@svc/jinja";
import { linkPlaceholder } from "./link-placeholders";
import { chooseLocale } from "./locale";
import {
  TEMPLATE_FIELDS,
  type RenderedContent,
  type TemplateDefinition,
  type TemplateField,
  type TemplateFields,
} from "./template-types";

/** The three template variables (docs/templates.md, "Variables"). */
export interface RenderContext {
  data?: Record<string, unknown> | null;
  recipient?: Record<string, unknown> | null;
  event?: Record<string, unknown> | null;
}

export interface RenderTemplateInput {
  template: TemplateDefinition;
  /** The person's locale; null falls back to the template's default. */
  locale?: string | null;
  channel?: string | null;
  context: RenderContext;
  /** E-mail HTML: autoescape the body (title, url and thread stay plain text). */
  html?: boolean;
}

export type RenderTemplateResult =
  | { ok: true; locale: string; channel: string | null; content: RenderedContent }
  | { ok: false; detail: string };

export function renderTemplate(input: RenderTemplateInput): RenderTemplateResult {
  const { template } = input;
  const channel = input.channel ?? null;
  const locale = chooseLocale(template.locales ?? {}, input.locale, template.default_locale);
  const localeDef = locale === null ? undefined : template.locales[locale];
  if (locale === null || typeof localeDef !== "object" || localeDef === null)
    return { ok: false, detail: "no usable locale" };

  const override =
    channel !== null && localeDef.channels && Object.hasOwn(localeDef.channels, channel)
      ? localeDef.channels[channel]
      : undefined;
  const context = templateContext(input.context);
  const rendered: Partial<Record<TemplateField, string>> = {};
  for (const field of TEMPLATE_FIELDS) {
    const fromOverride = override !== undefined && override !== null && override[field] !== undefined;
    const source = fromOverride ? override[field] : (localeDef as TemplateFields)[field];
    if (typeof source !== "string") continue;
    const result = renderSource(source, context, { html: input.html === true && field === "body" });
    if (!result.ok) {
      const path = fromOverride
        ? `locales.${locale}.channels.${channel}.${field}`
        : `locales.${locale}.${field}`;
      return { ok: false, detail: formatSourceError(path, result.error) };
    }
    rendered[field] = result.text;
  }
  return {
    ok: true,
    locale,
    channel,
    content: {
      title: rendered.title ?? "",
      body: rendered.body ?? "",
      url: blankToNull(rendered.url),
      thread: blankToNull(rendered.thread),
    },
  };
}

function blankToNull(text: string | undefined): string | null {
  const trimmed = text?.trim();
  return trimmed ? trimmed : null;
}

/**
 * A private copy (Jinja2-style `.pop()`/`.update()` in a template must not change the caller's
 * data) with link placeholders on the recipient when the caller set no links.
 */
export function templateContext(context: RenderContext): Record<string, unknown> {
  let copy: RenderContext;
  try {
    copy = structuredClone(context);
  } catch {
    copy = { ...context };
  }
  return {
    data: copy.data ?? {},
    event: copy.event ?? {},
    recipient: {
      preferences_url: linkPlaceholder("preferences_url"),
      unsubscribe_url: linkPlaceholder("unsubscribe_url"),
      ...(copy.recipient ?? {}),
    },
  };
}
