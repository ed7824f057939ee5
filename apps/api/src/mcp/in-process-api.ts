import type { ApiResult, Schemas } from "@svc/client";
import { AppError, isAppError, type Principal } from "@svc/core";
import {
  createApprovalRequest,
  decideMessageByKey,
  getApprovalRequestWaiting,
  sendMessage,
  type ApprovalInput,
  type ApprovalWaiters,
  type SendMessageInput,
} from "@svc/engine";
import type { SvcApi } from "@svc/mcp";
import { problemAt } from "../http/problem";
import { findUnstorableText, unstorableIssue } from "../http/unstorable-text";
import type { RouteDeps } from "../routes/route-deps";

// The MCP tools' operations inside the API process (docs/mcp.md "How /mcp calls svc"): the use
// cases the REST routes call, with the caller the /mcp request authenticated. Access was checked
// against the same OpenAPI operations and the arguments against the same schemas before a call
// gets here; a refused call answers the problem its REST twin would (same status, title, detail).

type Result<T> = Promise<ApiResult<T>>;

async function answer<T>(path: string, status: number, body: unknown, run: () => Promise<T>): Result<T> {
  try {
    // Postgres cannot store U+0000 or a lone surrogate: refused as the REST API refuses them
    // (docs/api.md "Request rules").
    const found = findUnstorableText(body);
    if (found) {
      const loc = ["body", ...found.loc];
      throw new AppError("validation", `${loc.join(".")}: ${found.msg}`, {
        errors: [unstorableIssue(loc, found.msg)],
      });
    }
    return { ok: true, status, data: await run() };
  } catch (error) {
    if (!isAppError(error)) throw error; // a bug: the MCP server answers 500 and it is logged
    const problem = problemAt(
      {
        status: error.status,
        title: error.title,
        detail: error.detail,
        errors: error.errors,
        extra: error.extra,
      },
      path,
    );
    return { ok: false, status: error.status, problem: problem as Schemas["Problem"] };
  }
}

// The engine's views and the document's schemas describe the same JSON (response validation in
// the API's tests keeps them equal); the tools hand it on as it is.
const asSchema = <T>(value: unknown) => value as T;

export type InProcessDeps = RouteDeps & { approvalWaiters: ApprovalWaiters };

/** `signal`: the /mcp request's client went away (a waiting get_approval stops). */
export function inProcessApi(deps: InProcessDeps, principal: Principal, signal?: AbortSignal): SvcApi {
  return {
    async sendMessage(body) {
      let status = 202;
      return answer("/v1/messages", 202, body, async () => {
        const { created, message } = await sendMessage(deps, principal, body as SendMessageInput);
        status = created ? 202 : 200;
        return asSchema<Schemas["Message"]>(message);
      }).then((result) => (result.ok ? { ...result, status } : result));
    },
    approveMessage: (id, body) =>
      answer(`/v1/messages/${id}/approve`, 200, body, async () =>
        asSchema<Schemas["Message"]>(
          await decideMessageByKey(deps, principal, id, { action: "approve", comment: body.reason ?? null }),
        ),
      ),
    rejectMessage: (id, body) =>
      answer(`/v1/messages/${id}/reject`, 200, body, async () =>
        asSchema<Schemas["Message"]>(
          await decideMessageByKey(deps, principal, id, { action: "reject", reason: body.reason ?? null }),
        ),
      ),
    createApproval: (body) =>
      answer("/v1/approvals", 201, body, async () =>
        asSchema<Schemas["Approval"]>(await createApprovalRequest(deps, principal, body as ApprovalInput)),
      ),
    getApproval: (id, waitSeconds) =>
      answer(`/v1/approvals/${id}`, 200, {}, async () =>
        asSchema<Schemas["Approval"]>(
          await getApprovalRequestWaiting(deps, principal, id, { seconds: waitSeconds ?? 0, signal }),
        ),
      ),
  };
}
