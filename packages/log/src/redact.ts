import { format } from "winston";

// Secrets never reach the logs: values under sensitive keys are masked, and API keys or bearer
// credentials embedded in any string (messages, error text, URLs) are masked wherever they appear.

export const REDACTED = "[REDACTED]";

const SENSITIVE_KEY = /authorization|password|passwd|secret|cookie|api[_-]?key|token/i;
const API_KEY = /svc_[A-Za-z0-9]{43}(?![A-Za-z0-9])/g;
const BEARER = /\b(Bearer)\s+[A-Za-z0-9._~+/=-]+/gi;
const MAX_DEPTH = 8;

export const isSensitiveKey = (key: string): boolean => SENSITIVE_KEY.test(key);

export function redactString(value: string): string {
  return value.replace(BEARER, `$1 ${REDACTED}`).replace(API_KEY, `svc_${REDACTED}`);
}

/** Returns a redacted copy of `value`; never mutates it. */
export function redactValue(value: unknown, key = "", depth = 0, seen = new WeakSet<object>()): unknown {
  // Counts and flags under a sensitive-looking key (max_tokens: 800) carry no secret.
  if (
    key &&
    isSensitiveKey(key) &&
    value != null &&
    typeof value !== "number" &&
    typeof value !== "boolean"
  ) {
    return REDACTED;
  }
  if (typeof value === "string") return redactString(value);
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value) || depth >= MAX_DEPTH) return "[Truncated]";
  seen.add(value);
  if (value instanceof Error) {
    return {
      name: value.name,
      message: redactString(value.message),
      stack: value.stack && redactString(value.stack),
    };
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, "", depth + 1, seen));
  if (value instanceof Date || Buffer.isBuffer(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactValue(v, k, depth + 1, seen);
  return out;
}

/** winston format: masks secrets in every string-keyed field of the log entry (symbols kept). */
export const redactFormat = format((info) => {
  for (const key of Object.keys(info)) {
    if (key === "level") continue;
    info[key] = redactValue(info[key], key);
  }
  return info;
});
