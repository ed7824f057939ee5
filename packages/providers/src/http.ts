// HTTP plumbing shared by the HTTP providers, the approval callbacks and the model clients: a
// POST with a deadline, and the classification of its outcome by status code or error class,
// never by message text (docs/providers.md, "How a send ends"). Requests go through undici's
// `request` (the library behind Node's fetch) on its shared keep-alive pool: a quarter of fetch's
// CPU per request, which a worker posting thousands of webhooks a second feels
// (docs/decisions.md "HTTP client").
import { request, type Dispatcher } from "undici";
import { isOutboundAddressRefused } from "./outbound";
import { permanent, retryable, type SendFailure } from "./provider";

interface ResponseHeaders {
  /** A header's value (several joined by ", "), or null. */
  get(name: string): string | null;
}

export interface HttpResponse {
  status: number;
  headers: ResponseHeaders;
  /** The answer's first MAX_ANSWER_BYTES at most (its UTF-8 text). */
  text: string;
}

/**
 * What svc reads of an answer: enough for any provider's error document, and a receiver that
 * answers megabytes (a hostile webhook endpoint, a push service's URL from data) costs no more
 * memory than this. The rest is not read: the connection is closed instead.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface HttpPost {
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Ends the whole exchange, answer body included. */
  timeoutMs: number;
  /** undici's shared pool unless set: addresses taken from data use a guarded one (./outbound). */
  dispatcher?: Dispatcher;
}

/** Resolves with any HTTP answer (redirects are not followed); rejects only when no answer came (timeout, connection error). */
export async function postWithDeadline(post: HttpPost): Promise<HttpResponse> {
  return postWithSignal(post, AbortSignal.timeout(post.timeoutMs));
}

/** postWithDeadline with a signal of the caller's (one deadline shared by several requests). */
export async function postWithSignal(
  post: Omit<HttpPost, "timeoutMs">,
  signal: AbortSignal,
): Promise<HttpResponse> {
  const response = await request(post.url, {
    method: "POST",
    headers: post.headers,
    body: post.body,
    signal,
    ...(post.dispatcher ? { dispatcher: post.dispatcher } : {}),
  });
  // Read to the end (an unread body keeps its connection out of the pool), but no further than
  // MAX_ANSWER_BYTES: leaving the loop early destroys the body and its connection.
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - size));
    size += chunk.length;
    if (size >= MAX_ANSWER_BYTES) break;
  }
  const text = Buffer.concat(chunks).toString("utf8");
  return { status: response.statusCode, headers: headersOf(response.headers), text };
}

function headersOf(raw: Record<string, string | string[] | undefined>): ResponseHeaders {
  return {
    get(name) {
      const value = raw[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

export type ProviderRequest = Omit<HttpPost, "timeoutMs">;

/**
 * A provider's POSTs, each within `timeoutMs` and its answer read by `onAnswer`; when no answer
 * came (timeout, connection error) the outcome is a retryable transport failure named by `label`.
 */
export function providerPost(label: string, timeoutMs: number) {
  return async <T>(
    request: ProviderRequest,
    onAnswer: (response: HttpResponse) => T | SendFailure,
  ): Promise<T | SendFailure> => {
    try {
      return onAnswer(await postWithDeadline({ ...request, timeoutMs }));
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

/**
 * No answer at all. Stored errors name only a category, never the far side's network detail
 * (addresses, ports, ECONNRESET against ECONNREFUSED), so attempts cannot be read as a port scan
 * (docs/providers.md "How a send ends"): a timeout or a failed connection is worth another try; an
 * internal address refused by the outbound guard is permanent.
 */
export function transportFailure(label: string, error: unknown, timeoutMs: number): SendFailure {
  if (isOutboundAddressRefused(error)) return permanent(`${label} refused: internal address`);
  if (isTimeout(error)) return retryable(`${label} timeout after ${timeoutMs} ms`);
  return retryable(`${label} connection failed`);
}

function isTimeout(error: unknown): boolean {
  const name = error instanceof Error || error instanceof DOMException ? error.name : "";
  return name === "TimeoutError" || name === "AbortError" || errorCode(error) === "ETIMEDOUT";
}

/** The innermost error code (ECONNREFUSED, ...), or the error's name when it has none. */
export function errorCode(error: unknown): string {
  return systemErrorCode(error) ?? (error instanceof Error ? error.name : "unknown");
}

/** The innermost `code` (ECONNREFUSED, ...): HTTP/2 and some clients wrap the system error as `cause`. */
export function systemErrorCode(error: unknown): string | undefined {
  let found: string | undefined;
  for (let current: unknown = error, depth = 0; current && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") found = code;
    current = (current as { cause?: unknown }).cause;
  }
  return found;
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
