import type { OwnPreferencesView } from "@svc/engine";
import { errorSummary, html, page, type Html } from "./html";
import { fill, stringsFor, type Strings } from "./preferences-i18n";

// Server-rendered pages; no JavaScript. Links are relative so a path prefix in api.public_url works.

const categoryLabel = (t: Strings, c: { key: string; description: string }) =>
  t.categoryNames[c.key] ?? (c.description.trim() || c.key);

interface CheckboxGroup {
  legend: string;
  hint: string;
  /** The hint's id, which the fieldset names as its description. */
  hintId: string;
  /** Each box's id is `${idPrefix}-${index}`. */
  idPrefix: string;
  /** The form field every checked box submits its value as. */
  name: string;
  boxes: { value: string; label: string; checked: boolean }[];
  /** Shown instead of the boxes when there are none. */
  empty?: Html;
}

function checkboxFieldset(group: CheckboxGroup): Html {
  const boxes =
    group.boxes.length === 0 && group.empty
      ? group.empty
      : group.boxes.map((box, i) => {
          const id = `${group.idPrefix}-${i}`;
          return html`<div class="choice">
            <input
              type="checkbox"
              id="${id}"
              name="${group.name}"
              value="${box.value}"
              ${box.checked ? html` checked` : ""}
            /><label for="${id}">${box.label}</label>
          </div>`;
        });
  return html`<fieldset aria-describedby="${group.hintId}">
    <legend>${group.legend}</legend>
    <p class="hint" id="${group.hintId}">${group.hint}</p>
    ${boxes}
  </fieldset>`;
}

function categoriesFieldset(t: Strings, view: OwnPreferencesView): Html {
  return checkboxFieldset({
    legend: t.categoriesLegend,
    hint: t.categoriesHint,
    hintId: "categories-hint",
    idPrefix: "category",
    name: "subscribed",
    boxes: view.categories.map((c) => ({ value: c.key, label: categoryLabel(t, c), checked: c.subscribed })),
    empty: html`<p>${t.noCategories}</p>`,
  });
}

function channelsFieldset(t: Strings, view: OwnPreferencesView): Html | null {
  if (view.channels.length === 0) return null;
  return checkboxFieldset({
    legend: t.channelsLegend,
    hint: t.channelsHint,
    hintId: "channels-hint",
    idPrefix: "channel",
    name: "muted",
    boxes: view.channels.map((c) => ({
      value: c.name,
      label: t.channelNames[c.name] ?? c.name,
      checked: c.muted,
    })),
  });
}

function quietHoursFieldset(
  t: Strings,
  view: OwnPreferencesView,
  entered?: { start: string; end: string },
): Html {
  const start = entered?.start ?? view.quiet_hours?.start ?? "";
  const end = entered?.end ?? view.quiet_hours?.end ?? "";
  return html`<fieldset aria-describedby="quiet-hint">
    <legend>${t.quietLegend}</legend>
    <p class="hint" id="quiet-hint">${t.quietHint}</p>
    <div class="times">
      <label for="quiet-start"
        >${t.quietFrom}<input type="time" id="quiet-start" name="quiet_start" value="${start}" /></label
      ><label for="quiet-end"
        >${t.quietTo}<input type="time" id="quiet-end" name="quiet_end" value="${end}"
      /></label>
    </div>
  </fieldset>`;
}

export interface PreferencesPageState {
  saved?: boolean;
  errors?: string[];
  /** What the person typed, shown again after an error. */
  enteredQuietHours?: { start: string; end: string };
}

export function renderPreferencesPage(
  view: OwnPreferencesView,
  token: string,
  state: PreferencesPageState = {},
): string {
  const t = stringsFor(view.locale);
  const key = view.link_category;
  const category = key
    ? categoryLabel(t, view.categories.find((c) => c.key === key) ?? { key, description: "" })
    : null;
  const notice = category
    ? html`<p class="notice">
        ${fill(t.linkCategory, { category })}
        <a href="${token}/unsubscribe">${fill(t.unsubscribeFrom, { category })}</a>
      </p>`
    : null;
  const body = html`<h1>${t.title}</h1>
    ${state.saved ? html`<p class="status" role="status">${t.saved}</p>` : null}
    ${errorSummary(t.errorSummary, state.errors ?? [])}
    <p>${t.intro}</p>
    ${notice}
    <form method="post">
      <input type="hidden" name="form" value="preferences" />
      ${categoriesFieldset(t, view)} ${channelsFieldset(t, view)}
      ${quietHoursFieldset(t, view, state.enteredQuietHours)}
      <button type="submit">${t.save}</button>
    </form>`;
  return page({ lang: t.lang, title: t.title, body });
}

/** GET …/unsubscribe: a confirm button; opening the link changes nothing. */
export function renderUnsubscribeConfirm(
  locale: string | null,
  categoryKey: { key: string; description: string },
  token: string,
): string {
  const t = stringsFor(locale);
  const category = categoryLabel(t, categoryKey);
  const body = html`<h1>${t.confirmTitle}</h1>
    <form method="post">
      <p>${fill(t.confirmText, { category })}</p>
      <input type="hidden" name="List-Unsubscribe" value="One-Click" />
      <button type="submit">${t.confirmButton}</button>
    </form>
    <p><a href="../${token}">${t.managePreferences}</a></p>`;
  return page({ lang: t.lang, title: t.confirmTitle, body });
}

export function renderUnsubscribed(
  locale: string | null,
  categoryKey: { key: string; description: string },
  changed: boolean,
  token: string,
): string {
  const t = stringsFor(locale);
  const category = categoryLabel(t, categoryKey);
  const text = fill(changed ? t.unsubscribedText : t.alreadyUnsubscribedText, { category });
  const body = html`<h1>${t.unsubscribedTitle}</h1>
    <p class="status" role="status">${text}</p>
    <p><a href="../${token}">${t.managePreferences}</a></p>`;
  return page({ lang: t.lang, title: t.unsubscribedTitle, body });
}

export function renderErrorPage(problem: { status: number; title: string; detail: string }): string {
  const body = html`<h1>${problem.title}</h1>
    <p>${problem.detail}</p>
    <p class="hint">${`Error ${problem.status}`}</p>`;
  return page({ lang: "en", title: `${problem.title} (${problem.status})`, body });
}
