/** Renderable fields of a template locale; each is a Jinja2 template string (@svc/jinja). */
export interface TemplateFields {
  title: string;
  body: string;
  url?: string | null;
  thread?: string | null;
}

export interface TemplateLocale extends TemplateFields {
  /** Per-channel overrides: a given field replaces the locale's field on that channel. */
  channels?: Record<string, Partial<TemplateFields>> | null;
}

/** A template as stored and as the API takes it (docs/templates.md, "Shape"). */
export interface TemplateDefinition {
  key: string;
  default_locale?: string | null;
  locales: Record<string, TemplateLocale>;
  ai_attributes?: string[] | null;
}

export const DEFAULT_TEMPLATE_LOCALE = "en";

export interface RenderedContent {
  title: string;
  body: string;
  /** null when the template has none or it renders blank. */
  url: string | null;
  thread: string | null;
}

export const TEMPLATE_FIELDS = ["title", "body", "url", "thread"] as const;
export type TemplateField = (typeof TEMPLATE_FIELDS)[number];
