import { compileSource, formatSourceError } from "@svc/jinja";
import { chooseLocale } from "./locale";
import { DEFAULT_TEMPLATE_LOCALE, TEMPLATE_FIELDS, type TemplateDefinition } from "./template-types";

export type TemplateCheck = { ok: true } | { ok: false; detail: string; loc: string[] };

// Loose BCP 47 shape: language, then subtags (en, de-AT, zh-Hant-TW, pt_BR).
const LOCALE_TAG = /^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(loc: string[], message: string): TemplateCheck {
  return { ok: false, detail: `${loc.join(".")}: ${message}`, loc };
}

// Required fields must be strings, optional ones strings or null; every string must compile.
function checkFields(fields: Record<string, unknown>, loc: string[], required: boolean): TemplateCheck {
  for (const field of TEMPLATE_FIELDS) {
    const value = fields[field];
    const isRequired = required && (field === "title" || field === "body");
    if (value === undefined || (value === null && !isRequired)) {
      if (isRequired) return fail([...loc, field], "required");
      continue;
    }
    if (typeof value !== "string") return fail([...loc, field], "must be a string");
    const compiled = compileSource(value);
    if (!compiled.ok)
      return {
        ok: false,
        detail: formatSourceError([...loc, field].join("."), compiled.error),
        loc: [...loc, field],
      };
  }
  return { ok: true };
}

/**
 * Write-time check: the first problem, named by path (`locales.en.body: line 3: unexpected
 * token: }}`). Compiling here also warms the render cache.
 */
export function validateTemplate(
  template: Pick<TemplateDefinition, "locales" | "default_locale">,
): TemplateCheck {
  if (!isRecord(template.locales) || Object.keys(template.locales).length === 0) {
    return fail(["locales"], "at least one locale is required");
  }
  for (const [locale, def] of Object.entries(template.locales)) {
    const loc = ["locales", locale];
    if (!LOCALE_TAG.test(locale)) return fail(loc, "not a locale tag");
    if (!isRecord(def)) return fail(loc, "must be an object");
    const fields = checkFields(def, loc, true);
    if (!fields.ok) return fields;
    if (def.channels === undefined || def.channels === null) continue;
    if (!isRecord(def.channels)) return fail([...loc, "channels"], "must be an object");
    for (const [channel, override] of Object.entries(def.channels)) {
      if (!isRecord(override)) return fail([...loc, "channels", channel], "must be an object");
      const overrideFields = checkFields(override, [...loc, "channels", channel], false);
      if (!overrideFields.ok) return overrideFields;
    }
  }
  const defaultLocale = template.default_locale ?? DEFAULT_TEMPLATE_LOCALE;
  if (chooseLocale(template.locales, null, defaultLocale) === null) {
    return fail(["default_locale"], `no locale '${defaultLocale}' in locales`);
  }
  return { ok: true };
}
