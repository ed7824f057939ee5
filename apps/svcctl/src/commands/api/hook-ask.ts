import { readFile } from "node:fs/promises";
import path from "node:path";
import { callApi, type Schemas } from "@svc/client";
import {
  HookPayloadError,
  parsePermissionRules,
  parseToolCall,
  permissionHookOutput,
  PermissionRuleError,
  type OnTimeout,
  type PermissionHook,
  type PermissionVerdict,
  type RuleSet,
} from "@svc/core";
import { askPermission, maskSecretsIn, type PermissionPorts } from "@svc/engine";
import { describeProblem, exitCodeFor, unreachable, type ApiAccess } from "../../api-access";
import { CliError, classifyError } from "../../cli-error";
import { EXIT } from "../../exit-codes";
import type { Session } from "../../session";

// `svcctl hook --ask` (docs/hooks.md "Asking a person"): Claude Code's PreToolUse or
// PermissionRequest input on stdin; local rules first, then a person through svc, waiting with
// long polls; Claude Code's hook output on stdout, exit 0. It never leaves Claude Code without an
// answer it can act on: svc unreachable (or misconfigured) answers `--on-error` (ask: Claude Code
// asks in the terminal; deny), and Claude Code's own stop signal withdraws the request first.

export interface AskOptions {
  allow: string[];
  deny: string[];
  rules?: string;
  reviewer: string[];
  timeout: number;
  onTimeout: OnTimeout;
  onError: "ask" | "deny";
  project?: string;
  agent?: string;
}

/** A waiting read asks for at most this long (the API's own bound). */
const MAX_WAIT_SECONDS = 30;
/** Every other call to svc gives up after this long. */
const CALL_TIMEOUT_MS = 10_000;

/** `--allow`, `--deny` and the rules file (`{allow, deny}`, or Claude Code's settings with `permissions`). */
async function loadRules(s: Session, options: AskOptions): Promise<RuleSet> {
  const allow = [...options.allow];
  const deny = [...options.deny];
  if (options.rules) {
    const file = path.resolve(s.io.cwd, options.rules);
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(file, "utf8"));
    } catch (error) {
      throw new CliError(EXIT.config, `cannot read the rules file ${file}: ${(error as Error).message}`);
    }
    const block = (parsed as { permissions?: unknown })?.permissions ?? parsed;
    const list = (key: "allow" | "deny"): string[] => {
      const value = (block as Record<string, unknown> | null)?.[key] ?? [];
      if (!Array.isArray(value) || value.some((rule) => typeof rule !== "string"))
        throw new CliError(EXIT.config, `the rules file ${file}: '${key}' must be a list of rules`);
      return value as string[];
    };
    allow.push(...list("allow"));
    deny.push(...list("deny"));
  }
  try {
    return { allow: parsePermissionRules(allow), deny: parsePermissionRules(deny) };
  } catch (error) {
    if (error instanceof PermissionRuleError) throw new CliError(EXIT.config, error.message);
    throw error;
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/** The ports of askPermission over svc's HTTP API (the typed client). */
function portsOverHttp(s: Session, stop: AbortSignal): PermissionPorts {
  const api: ApiAccess = s.api({ timeoutMs: CALL_TIMEOUT_MS });
  const waiting: ApiAccess = s.api({ timeoutMs: (MAX_WAIT_SECONDS + 10) * 1000 });
  const read = (id: string, wait: number) =>
    waiting.client.GET("/v1/approvals/{id}", { params: { path: { id }, query: { wait } }, signal: stop });
  const current = (id: string) =>
    api.call(api.client.GET("/v1/approvals/{id}", { params: { path: { id } } }));
  return {
    mask: (call) => maskSecretsIn(call),
    async sessionGrants(sessionId) {
      const grants = await api.call(
        api.client.GET("/v1/session-grants/{session_id}", { params: { path: { session_id: sessionId } } }),
      );
      return grants.grants.map((grant) => ({ rules: grant.rules, granted_by: grant.granted_by }));
    },
    createRequest: (input) => api.call(api.client.POST("/v1/approvals", { body: input })),
    async waitForDecision(id, until) {
      let last: Schemas["Approval"] | null = null;
      let failure: unknown = null;
      for (;;) {
        const left = until.getTime() - s.now().getTime();
        if (stop.aborted || left <= 0) break;
        let result;
        try {
          result = await callApi(read(id, Math.min(MAX_WAIT_SECONDS, Math.ceil(left / 1000))));
        } catch (error) {
          if (stop.aborted) break;
          // svc went away for a moment: try again until the deadline.
          failure = unreachable(waiting.url, error);
          await sleep(Math.min(1_000, left), stop);
          continue;
        }
        if (result.ok) {
          failure = null;
          last = result.data;
          if (last.status !== "pending") return last;
          continue;
        }
        if (result.status === 429) {
          await sleep(Math.min(1_000, left), stop);
          continue;
        }
        throw new CliError(exitCodeFor(result.status), describeProblem(result.problem));
      }
      if (failure && !stop.aborted) throw failure;
      // The wait is over (or Claude Code stops the hook): the request as it stands now.
      return stop.aborted || !last ? current(id) : last;
    },
    async withdraw(id) {
      const result = await callApi(
        api.client.POST("/v1/approvals/{id}/cancel", { params: { path: { id } } }),
      ).catch((error: unknown) => {
        throw unreachable(api.url, error);
      });
      if (result.ok) return result.data;
      // Somebody decided (or the deadline passed) first: that is the answer.
      if (result.status === 409)
        return api.call(api.client.GET("/v1/approvals/{id}", { params: { path: { id } } }));
      throw new CliError(exitCodeFor(result.status), describeProblem(result.problem));
    },
  };
}

function errorVerdict(options: AskOptions, message: string): PermissionVerdict {
  return options.onError === "deny"
    ? { decision: "deny", reason: `svc could not be asked (${message}); denied` }
    : { decision: "ask", reason: `svc could not be asked (${message}); asking here instead` };
}

/**
 * Answers one tool call. `payload` is the hook's parsed JSON. Prints the hook output (nothing for a
 * PermissionRequest handed back to Claude Code's dialog, or for a hook it does not answer).
 */
export async function answerToolCall(s: Session, payload: unknown, options: AskOptions): Promise<void> {
  const hookName = (payload as { hook_event_name?: unknown } | null)?.hook_event_name;
  if (hookName === "SessionEnd") return endSession(s, payload);
  let call;
  try {
    call = parseToolCall(payload, { project: options.project, agent: options.agent });
  } catch (error) {
    if (error instanceof HookPayloadError) throw new CliError(EXIT.usage, error.message);
    throw error;
  }
  const hook: PermissionHook = call.hook;
  const print = (verdict: PermissionVerdict) => {
    const output = permissionHookOutput(hook, verdict);
    if (output) s.io.stdout.write(`${JSON.stringify(output)}\n`);
  };
  const stop = new AbortController();
  const off = s.io.onTerminate?.(() => stop.abort());
  try {
    const rules = await loadRules(s, options);
    const fallback = s.io.env.SVC_RECIPIENT;
    const reviewers = options.reviewer.length > 0 ? options.reviewer : fallback ? [fallback] : [];
    const answer = await askPermission(portsFor(s, stop.signal, reviewers), call, {
      reviewers,
      timeoutSeconds: options.timeout,
      onTimeout: options.onTimeout,
      rules,
      home: s.io.env.HOME ?? null,
      now: s.now,
    });
    print(answer.verdict);
  } catch (error) {
    const failure = classifyError(error);
    s.err(`svcctl hook: ${failure.message}`);
    print(errorVerdict(options, failure.message));
  } finally {
    off?.();
  }
}

// Built on first use, after the local rules: a rule answers without a reviewer, SVC_URL or a key.
function portsFor(s: Session, stop: AbortSignal, reviewers: readonly string[]): PermissionPorts {
  let ports: PermissionPorts | null = null;
  const get = () => {
    if (reviewers.length === 0)
      throw new CliError(EXIT.config, "no reviewer: pass --reviewer or set SVC_RECIPIENT");
    return (ports ??= portsOverHttp(s, stop));
  };
  return {
    mask: async (call) => get().mask(call),
    sessionGrants: async (id) => get().sessionGrants(id),
    createRequest: async (input) => get().createRequest(input),
    waitForDecision: async (id, until) => get().waitForDecision(id, until),
    withdraw: async (id) => get().withdraw(id),
  };
}

/** Claude Code's SessionEnd: the session's "Allow for this session" grants end with it. */
async function endSession(s: Session, payload: unknown): Promise<void> {
  const sessionId = (payload as { session_id?: unknown }).session_id;
  if (typeof sessionId !== "string" || sessionId === "") return;
  const api = s.api({ timeoutMs: CALL_TIMEOUT_MS });
  try {
    await api.call(
      api.client.DELETE("/v1/session-grants/{session_id}", { params: { path: { session_id: sessionId } } }),
    );
  } catch (error) {
    s.err(`svcctl hook: the session's grants were not ended: ${classifyError(error).message}`);
  }
}
