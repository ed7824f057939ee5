import { postWithSignal, systemErrorCode } from "@svc/providers";

// One JSON POST to an external model service (digest summaries, docs/digests.md; screening,
// docs/screening.md): the key as a Bearer token when set, one deadline for the whole exchange
// (body included), and every failure classified rather than thrown, so callers fall back. It goes
// through the providers' HTTP client (undici, docs/decisions.md "HTTP client").

export interface PostJsonOptions {
  /** Sent as `Authorization: Bearer …` when set (from the environment only). */
  apiKey: string | null;
  /** Ends the exchange (AbortSignal.timeout(ms), possibly shared by several calls). */
  signal: AbortSignal;
}

export type PostJsonFailure =
  | { ok: false; kind: "timeout"; error: "timeout" }
  /** No answer at all: refused connection, reset, DNS. `error` names the cause when known. */
  | { ok: false; kind: "network"; error: string }
  | { ok: false; kind: "http"; status: number; error: string; retryAfterMs?: number }
  /** A 2xx whose body is not JSON. */
  | { ok: false; kind: "invalid"; error: "invalid response" };

export type PostJsonResult = { ok: true; json: unknown } | PostJsonFailure;

export async function postJson(
  url: string,
  body: unknown,
  options: PostJsonOptions,
): Promise<PostJsonResult> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  let response;
  try {
    response = await postWithSignal({ url, headers, body: JSON.stringify(body) }, options.signal);
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === "TimeoutError" || name === "AbortError")
      return { ok: false, kind: "timeout", error: "timeout" };
    const code = systemErrorCode(error);
    return { ok: false, kind: "network", error: code ? `connection failed (${code})` : "connection failed" };
  }
  if (response.status < 200 || response.status > 299) {
    const retryAfterMs = retryAfterOf(response.headers.get("retry-after"));
    return {
      ok: false,
      kind: "http",
      status: response.status,
      error: `http ${response.status}`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  try {
    return { ok: true, json: JSON.parse(response.text) };
  } catch {
    return { ok: false, kind: "invalid", error: "invalid response" };
  }
}

/** `Retry-After` in seconds (the HTTP-date form is rare from APIs and ignored). */
function retryAfterOf(header: string | null): number | undefined {
  if (header === null || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim()) * 1000;
}
