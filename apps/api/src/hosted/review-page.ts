import type { ReviewItem, ReviewOutcome, ReviewPage, ReviewToolCall } from "@svc/engine";
import { errorSummary, html, page, type Html } from "./html";
import type { ReviewText } from "./review-i18n";

// The hosted review page (docs/approvals.md "Review links"): what is asked, and for an open item
// two forms that post back (no JavaScript). Text from agents is escaped by `html`. A coding agent's
// tool call (docs/hooks.md "What the reviewer sees") shows what will run (the command in a
// monospace block, the file and its diff for edits), its project and session, and three one-tap
// answers: Allow, Allow for this session, Deny.

/** Where the page's forms post from: the link itself (`/review/<token>`) or one of its actions. */
export type PageAt = { at: "link"; token: string } | { at: "action" };

export interface ReviewPageState {
  /** This request's decision was taken (a 200 after POST). */
  decided?: boolean;
  errors?: string[];
  /** The reason typed, shown again after an error. */
  reason?: string;
}

export interface RenderContext {
  t: ReviewText;
  /** The reviewer's time zone for deadlines and decision times (UTC when unknown). */
  timeZone: string;
  now: Date;
}

/** Longest reason a form may carry, in characters. */
export const MAX_REASON_CHARACTERS = 1000;

export function renderReviewPage(
  view: ReviewPage,
  where: PageAt,
  context: RenderContext,
  state: ReviewPageState = {},
): string {
  const { t } = context;
  const { item } = view;
  const title =
    view.state === "closed"
      ? state.decided
        ? t.decidedTitle
        : view.outcome.status === "withdrawn"
          ? t.withdrawnTitle
          : t.closedTitle
      : item.kind === "message"
        ? t.titleMessage
        : t.titleAction;
  const body = html`<h1>${title}</h1>
    ${view.state === "closed" ? outcomeNotice(view.outcome, context, state.decided === true) : null}
    ${errorSummary(t.errorSummary, state.errors ?? [])} ${whatIsAsked(item, view.state === "open", context)}
    ${view.state === "open" ? decisionForms(item, where, t, state.reason ?? "") : null}`;
  return page({ lang: t.lang, title, body });
}

function outcomeNotice(outcome: ReviewOutcome, context: RenderContext, decided: boolean): Html {
  const { t } = context;
  const at = outcome.at ? timeElement(outcome.at, context) : "";
  const by = outcome.by ?? "";
  const sentence = {
    approved: t.approvedBy,
    rejected: t.rejectedBy,
    expired: t.expiredAt,
    withdrawn: t.withdrawnAt,
  }[outcome.status];
  const comment = outcome.comment
    ? html`<p>
        ${fillHtml(outcome.status === "rejected" ? t.reasonGiven : t.commentGiven, { comment: outcome.comment })}
      </p>`
    : null;
  return html`<div class="${decided ? "status" : "notice"}" role="status">
      <p><strong>${fillHtml(sentence, { by, at })}</strong></p>
      ${comment}
    </div>
    ${decided ? null : html`<p class="hint">${t.closedHint} ${fillHtml(t.errorStatus, { status: "410" })}</p>`}`;
}

function whatIsAsked(item: ReviewItem, open: boolean, context: RenderContext): Html {
  const { t } = context;
  const sender = senderName(item, t);
  const deadline = html`${timeElement(item.deadline, context)}${open ? relativeHint(item.deadline, context) : ""}`;
  const call = item.toolCall;
  const intro =
    item.kind === "message"
      ? open
        ? t.introMessage
        : t.introMessageClosed
      : call
        ? open
          ? t.introToolCall
          : t.introToolCallClosed
        : open
          ? t.introAction
          : t.introActionClosed;
  const facts: [string, Html | string][] = [[t.sender, sender]];
  if (item.recipient !== null) facts.push([t.recipient, item.recipient]);
  if (item.category !== null) facts.push([t.category, item.category]);
  if (call) {
    if (call.project !== null) facts.push([t.project, call.project]);
    if (call.sessionId !== null) facts.push([t.session, call.sessionId]);
    facts.push([t.tool, call.tool]);
  }
  facts.push([t.importance, t.importanceNames[item.importance]], [t.deadline, deadline]);
  return html`<p>${fillHtml(intro, { sender })}</p>
    <dl class="facts">
      ${facts.map(
        ([term, value]) =>
          html`<dt>${term}</dt>
            <dd>${value}</dd>`,
      )}
    </dl>
    ${
      call
        ? toolCallSection(item, call, t)
        : html`<section aria-labelledby="item-heading">
            <h2 id="item-heading">${item.kind === "message" ? t.messageHeading : t.actionHeading}</h2>
            <div class="message">
              <p class="message-title"><strong>${item.title}</strong></p>
              <div class="message-text">${item.body.trim() === "" ? t.noBody : item.body}</div>
            </div>
          </section>`
    }`;
}

/** What will run: the command, the file and its diff, what is read or fetched, or the arguments. */
function toolCallSection(item: ReviewItem, call: ReviewToolCall, t: ReviewText): Html {
  const { details } = call;
  const code = (text: string, kind: string) => html`<pre class="code ${kind}"><code>${text}</code></pre>`;
  const file = (path: string) => html`<p><strong>${t.file}:</strong> <code>${path}</code></p>`;
  const shown = (() => {
    switch (details.kind) {
      case "command":
        return html`${code(`$ ${details.command}`, "command")}${
          details.description ? html`<p class="hint">${details.description}</p>` : null
        }`;
      case "edit":
        return html`${file(details.file)}${diffBlock(details.diff)}`;
      case "write":
        return html`${file(details.file)}${code(details.content, "content")}`;
      case "read":
        return file(details.file);
      case "fetch":
        return html`<p><strong>${t.address}:</strong> <code>${details.url}</code></p>
          ${details.prompt ? html`<p class="hint">${details.prompt}</p>` : null}`;
      default:
        return code(details.input, "input");
    }
  })();
  return html`<section aria-labelledby="item-heading">
    <h2 id="item-heading">${t.toolCallHeading}</h2>
    <p class="message-title"><strong>${item.title}</strong></p>
    ${shown} ${call.truncated ? html`<p class="hint">${t.truncated}</p>` : null}
  </section>`;
}

/** A unified diff, its added and removed lines marked (and readable without colour by their +/-). */
function diffBlock(diff: string): Html {
  const lines = diff.split("\n").map((line) => {
    const kind = line.startsWith("@@")
      ? "hunk"
      : line.startsWith("+")
        ? "add"
        : line.startsWith("-")
          ? "del"
          : null;
    return kind ? html`<span class="${kind}">${line}</span>` : html`${line} `;
  });
  return html`<pre class="code diff"><code>${lines}</code></pre>`;
}

/** `Name (key)` for an agent, the key alone when the name says nothing more. */
function senderName(item: ReviewItem, t: ReviewText): string {
  if (item.agent === null) return t.backendSender;
  const name = item.agentName?.trim();
  return name && name !== item.agent ? `${name} (${item.agent})` : item.agent;
}

function decisionForms(item: ReviewItem, where: PageAt, t: ReviewText, reason: string): Html {
  // Relative actions, so a path prefix in api.public_url keeps working.
  const base = where.at === "link" ? `${where.token}/` : "";
  const call = item.toolCall;
  const rules = call?.sessionRules ?? null;
  return html`<section aria-labelledby="decision-heading">
    <h2 id="decision-heading">${t.decisionHeading}</h2>
    <p class="hint">${t.decisionHint}</p>
    <form method="post" action="${base}approve" class="decision">
      <input type="hidden" name="decision" value="approve" />
      <button type="submit" class="approve">
        ${call ? t.allow : item.kind === "message" ? t.approveMessage : t.approveAction}
      </button>
    </form>
    ${
      rules
        ? html`<form method="post" action="${base}approve" class="decision">
            <input type="hidden" name="decision" value="approve" />
            <input type="hidden" name="scope" value="session" />
            <p class="hint" id="session-hint">
              ${fillHtml(t.allowForSessionHint, { rules: rules.join(", ") })}
            </p>
            <button type="submit" class="approve" aria-describedby="session-hint">
              ${t.allowForSession}
            </button>
          </form>`
        : null
    }
    <form method="post" action="${base}reject" class="decision">
      <input type="hidden" name="decision" value="reject" />
      <label for="reason">${call ? t.denyReasonLabel : t.reasonLabel}</label>
      <p class="hint" id="reason-hint">${call ? t.denyReasonHint : t.reasonHint}</p>
      <textarea
        id="reason"
        name="reason"
        rows="3"
        maxlength="${MAX_REASON_CHARACTERS}"
        aria-describedby="reason-hint"
      >
${reason}</textarea>
      <button type="submit" class="reject">${call ? t.deny : t.reject}</button>
    </form>
  </section>`;
}

function timeElement(at: Date, context: RenderContext): Html {
  return html`<time datetime="${at.toISOString()}">${formatInstant(at, context)}</time>`;
}

/** `March 4, 2026 at 2:05 PM UTC` in the page's language and the reviewer's time zone. */
function formatInstant(at: Date, { t, timeZone }: Pick<RenderContext, "t" | "timeZone">): string {
  return new Intl.DateTimeFormat(t.lang, {
    year: "numeric",
    month: "long",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZone,
    timeZoneName: "short",
  }).format(at);
}

/** ` (in 23 hours)` for a deadline still ahead. */
function relativeHint(deadline: Date, { t, now }: RenderContext): string {
  const seconds = (deadline.getTime() - now.getTime()) / 1000;
  if (seconds <= 0) return "";
  const relative = new Intl.RelativeTimeFormat(t.lang, { numeric: "auto" });
  const text =
    seconds < 90 * 60
      ? relative.format(Math.max(1, Math.round(seconds / 60)), "minute")
      : seconds < 48 * 3600
        ? relative.format(Math.round(seconds / 3600), "hour")
        : relative.format(Math.round(seconds / 86400), "day");
  return ` (${text})`;
}

/** Fills `{name}` slots of a translated sentence with text (escaped) or markup. */
function fillHtml(text: string, values: Record<string, string | Html>): Html {
  const parts = text.split(/\{(\w+)\}/);
  return html`${parts.map((part, i) => (i % 2 === 0 ? part : (values[part] ?? `{${part}}`)))}`;
}
