import { fill } from "./preferences-i18n";
import { MAX_REASON_CHARACTERS } from "./review-page";
import type { ReviewText } from "./review-i18n";

// The reject form's one field (docs/approvals.md "Review links"): an optional reason, kept as typed
// (the decision trims it), at most MAX_REASON_CHARACTERS characters and storable as text.

export type ReasonResult =
  { ok: true; reason: string | null } | { ok: false; errors: string[]; entered: string };

export function reasonFromForm(body: Record<string, unknown>, t: ReviewText): ReasonResult {
  // A field given twice (only a hand-made request does that) counts once.
  const value: unknown = Array.isArray(body.reason) ? body.reason[0] : body.reason;
  const entered = typeof value === "string" ? value : "";
  const errors: string[] = [];
  if (Array.from(entered.trim()).length > MAX_REASON_CHARACTERS)
    errors.push(fill(t.reasonTooLong, { max: String(MAX_REASON_CHARACTERS) }));
  // Postgres text cannot hold U+0000.
  if (entered.includes("\u0000")) errors.push(t.reasonUnstorable);
  if (errors.length > 0) return { ok: false, errors, entered: entered.replaceAll("\u0000", "") };
  return { ok: true, reason: entered.trim() === "" ? null : entered };
}
