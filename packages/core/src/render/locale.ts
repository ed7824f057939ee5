import { DEFAULT_TEMPLATE_LOCALE } from "./template-types";

// Locale tags compare case-insensitively (BCP 47); `_` is accepted as `-` (de_AT).
function findLocale(available: readonly string[], tag: string): string | undefined {
  const wanted = tag.toLowerCase().replace(/_/g, "-");
  return available.find((key) => key.toLowerCase().replace(/_/g, "-") === wanted);
}

/**
 * The person's locale exactly, then its language (`de-AT` -> `de`), then the template's default;
 * null when none exists (`no usable locale`).
 */
export function chooseLocale(
  locales: Record<string, unknown>,
  personLocale: string | null | undefined,
  defaultLocale: string | null | undefined,
): string | null {
  const available = Object.keys(locales);
  if (personLocale) {
    const exact = findLocale(available, personLocale);
    if (exact !== undefined) return exact;
    const language = personLocale.split(/[-_]/)[0];
    const byLanguage = language ? findLocale(available, language) : undefined;
    if (byLanguage !== undefined) return byLanguage;
  }
  return findLocale(available, defaultLocale || DEFAULT_TEMPLATE_LOCALE) ?? null;
}
