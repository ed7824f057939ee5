// Text replies svc acts on (docs/texting.md "STOP and START"): the whole reply, trimmed and
// compared without case, must equal a keyword. "stop please" or "STOP." change nothing.

export type SmsReplyAction = "stop" | "start" | "none";

/** The usual stop words plus the carriers' `stopall` and `optout` (`opt out` with one space or none; docs/texting.md). */
export const STOP_KEYWORDS = [
  "stop",
  "stopall",
  "unsubscribe",
  "cancel",
  "end",
  "quit",
  "revoke",
  "opt out",
  "optout",
] as const;
export const START_KEYWORDS = ["start", "unstop", "yes"] as const;
/** Recognised but answered by the provider itself; svc changes nothing. */
export const HELP_KEYWORDS = ["help", "info"] as const;

export interface SmsReply {
  action: SmsReplyAction;
  /** The keyword matched, lower case (`opt out`), or null for any other text. */
  keyword: string | null;
}

const isIn = (list: readonly string[], text: string) => list.includes(text);

export function parseSmsReply(body: string): SmsReply {
  const text = body.trim().toLowerCase();
  if (isIn(STOP_KEYWORDS, text)) return { action: "stop", keyword: text };
  if (isIn(START_KEYWORDS, text)) return { action: "start", keyword: text };
  if (isIn(HELP_KEYWORDS, text)) return { action: "none", keyword: text };
  return { action: "none", keyword: null };
}
