import type { Router } from "express";
import type { OnTimeout } from "@svc/core";
import {
  answerPermissionHook,
  createEventBatcher,
  reportCodingAgentHook,
  type AcceptEventDeps,
  type PermissionHookDeps,
} from "@svc/engine";
import { principalOf } from "../auth/require-key";
import { clientGone } from "../http/client-gone";
import { sendJson } from "../http/send-json";

// POST /v1/hooks/claude-code: Claude Code's HTTP hooks (docs/hooks.md); POST
// /v1/hooks/claude-code/permission asks a person before a tool call and answers with the decision.

interface HookQuery {
  recipient: string;
  event?: string;
  project?: string;
  agent?: string;
}

interface PermissionQuery {
  recipient: string | string[];
  timeout?: number;
  on_timeout?: OnTimeout;
  project?: string;
  agent?: string;
}

/** The default wait of the permission hook, as `svcctl hook --ask --timeout`. */
const DEFAULT_PERMISSION_TIMEOUT = 300;

export function hooksRoutes(router: Router, deps: AcceptEventDeps & PermissionHookDeps): void {
  const accept = { ...deps, eventBatcher: deps.eventBatcher ?? createEventBatcher(deps) };
  router.post("/v1/hooks/claude-code", async (req, res) => {
    const query = req.query as unknown as HookQuery;
    const { event, duplicate } = await reportCodingAgentHook(
      accept,
      principalOf(res),
      query.recipient,
      req.body,
      { format: "claude-code", event: query.event, project: query.project, agent: query.agent },
    );
    sendJson(res, duplicate ? 200 : 202, { ...event, duplicate });
  });

  router.post("/v1/hooks/claude-code/permission", async (req, res) => {
    const query = req.query as unknown as PermissionQuery;
    const signal = clientGone(res);
    const output = await answerPermissionHook(
      deps,
      principalOf(res),
      req.body,
      {
        reviewers: [query.recipient].flat(),
        timeoutSeconds: query.timeout ?? DEFAULT_PERMISSION_TIMEOUT,
        onTimeout: query.on_timeout ?? "deny",
        project: query.project,
        agent: query.agent,
      },
      signal,
    );
    // PermissionRequest handed back to Claude Code's own dialog: an empty object decides nothing.
    if (!signal.aborted) res.json(output ?? {});
  });
}
