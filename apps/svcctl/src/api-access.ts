import { callApi, createSvcClient, type Problem, type SvcClient } from "@svc/client";
import type { Env } from "@svc/config";
import { CliError } from "./cli-error";
import { EXIT, type ExitCode } from "./exit-codes";
import { cliVersion } from "./version";

// The commands that talk to the HTTP API (docs/svcctl.md "Talking to the API") reach it through
// the typed client only: SVC_URL and SVC_API_KEY (or --url and --key) say where and as whom.

export interface ApiTarget {
  url?: string;
  key?: string;
}

/** Where the API is and the key to use: --url/--key first, then SVC_URL/SVC_API_KEY. */
function resolveApiTarget(env: Env, given: ApiTarget): { url: string; key: string } {
  const url = given.url ?? env.SVC_URL;
  const key = given.key ?? env.SVC_API_KEY;
  if (!url)
    throw new CliError(EXIT.config, "no API URL: set SVC_URL or pass --url (e.g. http://localhost:8080)");
  if (!/^https?:\/\/[^/]/i.test(url))
    throw new CliError(EXIT.config, `SVC_URL is not an http(s) URL: ${url}`);
  if (!key) throw new CliError(EXIT.config, "no API key: set SVC_API_KEY or pass --key");
  return { url: url.replace(/\/+$/, ""), key };
}

export interface ApiAccess {
  readonly url: string;
  readonly client: SvcClient;
  /** Awaits a typed-client call: the body on success, else a CliError with the status's exit code. */
  call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T>;
}

export function apiAccess(env: Env, given: ApiTarget, options: { timeoutMs?: number } = {}): ApiAccess {
  const { url, key } = resolveApiTarget(env, given);
  const client = createSvcClient({
    url,
    key,
    timeoutMs: options.timeoutMs,
    userAgent: `svcctl/${cliVersion()}`,
  });
  return {
    url,
    client,
    async call(pending) {
      let result;
      try {
        result = await callApi(pending);
      } catch (error) {
        throw unreachable(url, error);
      }
      if (result.ok) return result.data;
      throw new CliError(exitCodeFor(result.status), describeProblem(result.problem), {
        cause: result.problem,
      });
    },
  };
}

/** A request that got no answer: refused connection, unknown host, timeout. */
export function unreachable(url: string, error: unknown): CliError {
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const reason =
    error instanceof DOMException && error.name === "TimeoutError"
      ? "timed out"
      : (cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error)));
  return new CliError(EXIT.unavailable, `cannot reach svc at ${url} (${reason})`, { cause: error });
}

/** `403 Forbidden: this API key lacks the scope 'admin'`, plus each validation issue. */
export function describeProblem(problem: Problem): string {
  const issues = (problem.errors ?? []).map((issue) => `${issue.loc.join(".")}: ${issue.msg}`);
  const detail = issues.length > 1 ? issues.join("; ") : problem.detail;
  return `${problem.status} ${problem.title}: ${detail}`;
}

/** Exit codes by status (docs/svcctl.md "Exit codes"). */
export function exitCodeFor(status: number): ExitCode {
  if (status === 404) return EXIT.notFound;
  if (status === 400 || status === 422) return EXIT.usage;
  if (status === 401) return EXIT.config; // the key in SVC_API_KEY / --key was refused
  if (status === 429 || status >= 500) return EXIT.unavailable;
  return EXIT.failure; // 403, 409 and the rest: the service understood and said no
}
