import type { OwnPreferencesView, PreferencesInput } from "@svc/engine";
import type { Strings } from "./preferences-i18n";

// The hosted form lists only what a person may choose; choices about anything else (a category
// that does not allow leaving, a channel no longer configured) are kept as they are.

const list = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string")
    : typeof value === "string"
      ? [value]
      : [];

const text = (value: unknown): string => (typeof value === "string" ? value.trim() : "");

const TIME = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

export type FormResult =
  | { ok: true; input: PreferencesInput }
  | { ok: false; errors: string[]; entered: { start: string; end: string } };

export function preferencesFromForm(
  body: Record<string, unknown>,
  view: OwnPreferencesView,
  t: Strings,
): FormResult {
  const optional = view.categories.map((c) => c.key);
  const subscribed = new Set(list(body.subscribed));
  const unsubscribed = [
    ...view.unsubscribed_categories.filter((key) => !optional.includes(key)),
    ...optional.filter((key) => !subscribed.has(key)),
  ];
  const configured = view.channels.map((c) => c.name);
  const mutedChoice = new Set(list(body.muted));
  const muted = [
    ...view.muted_channels.filter((name) => !configured.includes(name)),
    ...configured.filter((name) => mutedChoice.has(name)),
  ];
  // Browsers may send seconds (HH:MM:SS) from time inputs; minutes are what we keep.
  const start = text(body.quiet_start).slice(0, 5);
  const end = text(body.quiet_end).slice(0, 5);
  if ((start === "") !== (end === "")) return { ok: false, errors: [t.quietBoth], entered: { start, end } };
  if (start !== "" && (!TIME.test(start) || !TIME.test(end)))
    return { ok: false, errors: [t.quietFormat], entered: { start, end } };
  return {
    ok: true,
    input: {
      unsubscribed_categories: unsubscribed,
      muted_channels: muted,
      quiet_hours: start === "" ? null : { start, end },
    },
  };
}
