// HTTP plumbing shared by the HTTP providers: a POST with a deadline, and the classification of its
// outcome by status code or error class, never by message text (docs/providers.md, "How a send ends").
import { permanent, retryable, type SendFailure } from "./provider";

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
}

export interface HttpPost {
  fetch: typeof fetch;
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  timeoutMs: number;
}

/** Resolves with any HTTP answer; rejects only when no answer came (timeout, connection error). */
export async function postWithDeadline(request: HttpPost): Promise<HttpResponse> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  const response = await request.fetch(request.url, {
    method: "POST",
    headers: request.headers,
    body: request.body,
    signal,
    redirect: "manual",
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export type ProviderRequest = Omit<HttpPost, "fetch" | "timeoutMs">;

/**
 * A provider's POSTs, each within `timeoutMs` and its answer read by `onAnswer`; when no answer
 * came (timeout, connection error) the outcome is a retryable transport failure named by `label`.
 */
export function providerPost(label: string, fetchFn: typeof fetch, timeoutMs: number) {
  return async <T>(
    request: ProviderRequest,
    onAnswer: (response: HttpResponse) => T | SendFailure,
  ): Promise<T | SendFailure> => {
    try {
      return onAnswer(await postWithDeadline({ ...request, fetch: fetchFn, timeoutMs }));
    } catch (error) {
      return transportFailure(label, error, timeoutMs);
    }
  };
}

/** 408, 429 and 5xx are worth another try; any other non-2xx answer will not change. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** `Retry-After` as delta-seconds or an HTTP date, in milliseconds from now. */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | undefined {
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

/** A non-2xx answer: `<label> <status>[ <detail>]`, retryable or permanent by status code. */
export function statusFailure(
  label: string,
  status: number,
  headers: { get(name: string): string | null },
  now: Date,
  detail?: string,
): SendFailure {
  const error = detail ? `${label} ${status} ${detail}` : `${label} ${status}`;
  if (!isRetryableStatus(status)) return permanent(error);
  return retryable(error, parseRetryAfter(headers.get("retry-after"), now));
}

/** No answer at all: a timeout or a connection error, both worth another try. */
export function transportFailure(label: string, error: unknown, timeoutMs: number): SendFailure {
  if (isTimeout(error)) return retryable(`${label} timeout after ${timeoutMs} ms`);
  return retryable(`${label} connection failed (${errorCode(error)})`);
}

function isTimeout(error: unknown): boolean {
  const name = error instanceof Error || error instanceof DOMException ? error.name : "";
  return name === "TimeoutError" || name === "AbortError" || errorCode(error) === "ETIMEDOUT";
}

/** The innermost error code (ECONNREFUSED, ...): fetch and HTTP/2 wrap the system error as `cause`. */
export function errorCode(error: unknown): string {
  let found: string | undefined;
  for (let current: unknown = error, depth = 0; current && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") found = code;
    current = (current as { cause?: unknown }).cause;
  }
  return found ?? (error instanceof Error ? error.name : "unknown");
}

/** A JSON object answer, or {} when the body is empty, not JSON or not an object. */
export function parseJsonObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
