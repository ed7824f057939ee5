// Event-name patterns of rules: an exact name, or a glob where `*` is any run of characters
// (dots included). Matching is a linear two-pointer glob walk, never a regex, so no pattern can
// backtrack badly and regex metacharacters in names are plain characters.

export const EVENT_NAME_MAX_LENGTH = 200;

export type EventSource = "api" | "svc";

export interface PatternCheck {
  ok: boolean;
  detail?: string;
}

// Printable, no whitespace: names travel in URLs, logs and JSON Logic paths.
const NAME_CHARS = /^[^\s\p{Cc}]+$/u;

export function isWildcardPattern(pattern: string): boolean {
  return pattern.includes("*");
}

export function validateEventName(name: unknown): PatternCheck {
  const check = checkText(name, "event name");
  if (check.ok && (name as string).includes("*"))
    return { ok: false, detail: "event name must not contain '*'" };
  return check;
}

export function validateEventPattern(pattern: unknown): PatternCheck {
  return checkText(pattern, "event pattern");
}

/** What names and patterns share: a non-empty string within the length, no whitespace or control characters. */
function checkText(value: unknown, noun: "event name" | "event pattern"): PatternCheck {
  if (typeof value !== "string" || value.length === 0)
    return { ok: false, detail: `${noun} must be a non-empty string` };
  if (value.length > EVENT_NAME_MAX_LENGTH)
    return { ok: false, detail: `${noun} is longer than ${EVENT_NAME_MAX_LENGTH} characters` };
  if (!NAME_CHARS.test(value))
    return { ok: false, detail: `${noun} must not contain whitespace or control characters` };
  return { ok: true };
}

/** Pure glob test: `*` matches any run of characters (possibly empty), everything else literally. */
export function globMatches(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let starAt = -1; // position of the last `*` seen in the pattern
  let resumeAt = 0; // name position that `*` currently swallows up to
  while (n < name.length) {
    if (p < pattern.length && pattern[p] !== "*" && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (p < pattern.length && pattern[p] === "*") {
      starAt = p++;
      resumeAt = n;
    } else if (starAt !== -1) {
      p = starAt + 1;
      n = ++resumeAt;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === "*") p++;
  return p === pattern.length;
}

/**
 * Whether a rule's pattern sees an event. Wildcard patterns never see the service's own events
 * (source `svc`); an exact name does (docs/events.md, "Rules").
 */
export function patternSeesEvent(pattern: string, event: { name: string; source: EventSource }): boolean {
  if (!isWildcardPattern(pattern)) return pattern === event.name;
  if (event.source === "svc") return false;
  return globMatches(pattern, event.name);
}
