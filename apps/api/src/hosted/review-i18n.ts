import type { Importance } from "@svc/core";
import { pageLanguage } from "./preferences-i18n";

// Strings of the hosted review pages (docs/approvals.md "Review links"). English is complete and
// the fallback; other languages may leave keys out. `{name}` slots are filled by the page.

export interface ReviewStrings {
  titleMessage: string;
  titleAction: string;
  introMessage: string;
  introAction: string;
  introMessageClosed: string;
  introActionClosed: string;
  /** The sender of an approval request made with a key not bound to an agent. */
  backendSender: string;
  sender: string;
  recipient: string;
  category: string;
  importance: string;
  deadline: string;
  importanceNames: Record<Importance, string>;
  messageHeading: string;
  actionHeading: string;
  noBody: string;
  decisionHeading: string;
  decisionHint: string;
  approveMessage: string;
  approveAction: string;
  reasonLabel: string;
  reasonHint: string;
  reject: string;
  decidedTitle: string;
  closedTitle: string;
  approvedBy: string;
  rejectedBy: string;
  expiredAt: string;
  withdrawnAt: string;
  reasonGiven: string;
  commentGiven: string;
  closedHint: string;
  errorStatus: string;
  errorSummary: string;
  reasonTooLong: string;
  reasonUnstorable: string;
  /** A request its agent took back (docs/approvals.md "Withdrawing a request"). */
  withdrawnTitle: string;
  // A coding agent's tool call (docs/hooks.md "What the reviewer sees").
  introToolCall: string;
  introToolCallClosed: string;
  project: string;
  session: string;
  tool: string;
  toolCallHeading: string;
  file: string;
  address: string;
  truncated: string;
  allow: string;
  allowForSession: string;
  allowForSessionHint: string;
  deny: string;
  denyReasonLabel: string;
  denyReasonHint: string;
}

const en: ReviewStrings = {
  titleMessage: "Review a message",
  titleAction: "Approval requested",
  introMessage: "{sender} wants to send the message below. It waits until a person approves it.",
  introAction: "{sender} asks for approval before going ahead with what is described below.",
  introMessageClosed: "{sender} asked to send the message below.",
  introActionClosed: "{sender} asked for approval of what is described below.",
  backendSender: "A backend service",
  sender: "Sender",
  recipient: "To",
  category: "Category",
  importance: "Importance",
  deadline: "Decide by",
  importanceNames: { low: "Low", normal: "Normal", high: "High", critical: "Critical" },
  messageHeading: "The message",
  actionHeading: "What is asked",
  noBody: "(no text)",
  decisionHeading: "Your decision",
  decisionHint:
    "Only these buttons change anything. The first decision, by anyone, closes the review for every reviewer.",
  approveMessage: "Approve and send",
  approveAction: "Approve",
  reasonLabel: "Reason for rejecting (optional)",
  reasonHint: "Stored with the decision, so the sender's team can see why.",
  reject: "Reject",
  decidedTitle: "Decision recorded",
  closedTitle: "This review is closed",
  approvedBy: "Approved by {by} on {at}.",
  rejectedBy: "Rejected by {by} on {at}.",
  expiredAt: "Expired on {at} without a decision.",
  withdrawnAt: "Withdrawn on {at}; there is nothing left to decide.",
  reasonGiven: "Reason: {comment}",
  commentGiven: "Comment: {comment}",
  closedHint: "This link no longer accepts decisions.",
  errorStatus: "Error {status}",
  errorSummary: "Please correct the following:",
  reasonTooLong: "The reason can be at most {max} characters long.",
  reasonUnstorable: "The reason contains a character that cannot be stored (U+0000).",
  withdrawnTitle: "Withdrawn",
  introToolCall: "{sender} asks before it runs what is shown below, and waits for your answer.",
  introToolCallClosed: "{sender} asked before running what is shown below.",
  project: "Project",
  session: "Session",
  tool: "Tool",
  toolCallHeading: "What will run",
  file: "File",
  address: "Address",
  truncated: "Part of it was cut to fit here; the agent runs it in full.",
  allow: "Allow",
  allowForSession: "Allow for this session",
  allowForSessionHint: "Also allows, without asking again until the session ends: {rules}",
  deny: "Deny",
  denyReasonLabel: "Reason for denying (optional)",
  denyReasonHint: "The agent reads it, so it can try something else.",
};

const de: Partial<ReviewStrings> = {
  titleMessage: "Nachricht prüfen",
  titleAction: "Freigabe angefragt",
  introMessage: "{sender} möchte die folgende Nachricht senden. Sie wartet, bis eine Person sie freigibt.",
  introAction: "{sender} bittet um Freigabe, bevor es mit dem unten Beschriebenen weitergeht.",
  introMessageClosed: "{sender} wollte die folgende Nachricht senden.",
  introActionClosed: "{sender} bat um Freigabe des unten Beschriebenen.",
  backendSender: "Ein Backend-Dienst",
  sender: "Absender",
  recipient: "An",
  category: "Kategorie",
  importance: "Wichtigkeit",
  deadline: "Entscheiden bis",
  importanceNames: { low: "Niedrig", normal: "Normal", high: "Hoch", critical: "Kritisch" },
  messageHeading: "Die Nachricht",
  actionHeading: "Worum es geht",
  noBody: "(kein Text)",
  decisionHeading: "Ihre Entscheidung",
  decisionHint:
    "Nur diese Schaltflächen ändern etwas. Die erste Entscheidung, von wem auch immer, schließt die Prüfung für alle.",
  approveMessage: "Freigeben und senden",
  approveAction: "Freigeben",
  reasonLabel: "Grund für die Ablehnung (optional)",
  reasonHint: "Wird mit der Entscheidung gespeichert, damit das Team des Absenders den Grund sieht.",
  reject: "Ablehnen",
  decidedTitle: "Entscheidung gespeichert",
  closedTitle: "Diese Prüfung ist abgeschlossen",
  approvedBy: "Freigegeben von {by} am {at}.",
  rejectedBy: "Abgelehnt von {by} am {at}.",
  expiredAt: "Abgelaufen am {at}, ohne Entscheidung.",
  withdrawnAt: "Zurückgezogen am {at}; es gibt nichts mehr zu entscheiden.",
  reasonGiven: "Grund: {comment}",
  commentGiven: "Kommentar: {comment}",
  closedHint: "Dieser Link nimmt keine Entscheidungen mehr an.",
  errorStatus: "Fehler {status}",
  errorSummary: "Bitte korrigieren Sie Folgendes:",
  reasonTooLong: "Der Grund darf höchstens {max} Zeichen lang sein.",
  reasonUnstorable: "Der Grund enthält ein Zeichen, das nicht gespeichert werden kann (U+0000).",
  withdrawnTitle: "Zurückgezogen",
  introToolCall: "{sender} fragt, bevor es das unten Gezeigte ausführt, und wartet auf Ihre Antwort.",
  introToolCallClosed: "{sender} fragte, bevor es das unten Gezeigte ausführte.",
  project: "Projekt",
  session: "Sitzung",
  tool: "Werkzeug",
  toolCallHeading: "Was ausgeführt wird",
  file: "Datei",
  address: "Adresse",
  truncated: "Ein Teil wurde hier gekürzt; der Agent führt alles aus.",
  allow: "Erlauben",
  allowForSession: "Für diese Sitzung erlauben",
  allowForSessionHint: "Erlaubt außerdem ohne erneute Frage bis zum Ende der Sitzung: {rules}",
  deny: "Ablehnen",
  denyReasonLabel: "Grund für die Ablehnung (optional)",
  denyReasonHint: "Der Agent liest ihn und kann es anders versuchen.",
};

const DICTIONARIES: Record<string, Partial<ReviewStrings>> = { en, de };

/** The languages the review pages speak, English first (the fallback). */
export const REVIEW_LANGUAGES = Object.keys(DICTIONARIES);

export interface ReviewText extends ReviewStrings {
  lang: string;
}

/** The page language for a locale (`de-AT` → `de`), falling back to English per missing string. */
export function reviewStringsFor(locale: string | null | undefined): ReviewText {
  const lang = pageLanguage(locale, DICTIONARIES);
  const chosen = DICTIONARIES[lang] ?? {};
  return {
    ...en,
    ...chosen,
    importanceNames: { ...en.importanceNames, ...chosen.importanceNames },
    lang,
  };
}
