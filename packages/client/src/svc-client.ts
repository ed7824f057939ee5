import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./generated/openapi";

export type Schemas = components["schemas"];
export type Problem = Schemas["Problem"];
export type SvcClient = Client<paths>;

export interface SvcClientOptions {
  /** The API's base URL, e.g. `http://localhost:8080` (SVC_URL). */
  url: string;
  /** An API key (SVC_API_KEY); sent as `Authorization: Bearer <key>`. */
  key: string;
  /** Each request gives up after this long (an AbortSignal timeout); none by default. */
  timeoutMs?: number;
  /** Sent as User-Agent, e.g. `svcctl/0.1.0`. */
  userAgent?: string;
}

/** A client whose every request carries the key (and the timeout, when given). */
export function createSvcClient(options: SvcClientOptions): SvcClient {
  const timeoutMs = options.timeoutMs;
  return createClient<paths>({
    baseUrl: options.url.replace(/\/+$/, ""),
    headers: {
      Authorization: `Bearer ${options.key}`,
      ...(options.userAgent ? { "User-Agent": options.userAgent } : {}),
    },
    fetch:
      timeoutMs === undefined
        ? undefined
        : // The caller's own signal (a request given up) still counts beside the timeout.
          (request: Request) =>
            fetch(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) }),
  });
}

/** What a call answered: the body on 2xx, else the RFC 9457 problem (docs/api.md "Errors"). */
export type ApiResult<T> =
  { ok: true; status: number; data: T } | { ok: false; status: number; problem: Problem };

/** Title of the problem made up for an error answer that is not a problem (a proxy's HTML page). */
export const API_PROBLEM_UNREADABLE = "Unreadable answer";

/**
 * Awaits an openapi-fetch call and folds it into an ApiResult. Network failures and timeouts are
 * not answers: they reject, as fetch does, for the caller to report as "cannot reach".
 */
export async function callApi<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<ApiResult<T>> {
  const { data, error, response } = await pending;
  if (response.ok) return { ok: true, status: response.status, data: data as T };
  return { ok: false, status: response.status, problem: asProblem(error, response) };
}

function asProblem(error: unknown, response: Response): Problem {
  const body = error as Partial<Problem> | undefined;
  if (body && typeof body === "object" && typeof body.detail === "string") {
    return { type: "about:blank", title: response.statusText, ...body, status: response.status } as Problem;
  }
  const text = typeof error === "string" ? error.trim().slice(0, 200) : "";
  return {
    type: "about:blank",
    title: API_PROBLEM_UNREADABLE,
    status: response.status,
    detail: `HTTP ${response.status}${text ? `: ${text}` : ""}`,
  };
}
