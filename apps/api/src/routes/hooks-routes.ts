import type { Router } from "express";
import { createEventBatcher, reportCodingAgentHook, type AcceptEventDeps } from "@svc/engine";
import { principalOf } from "../auth/require-key";
import { sendJson } from "../http/send-json";

// POST /v1/hooks/claude-code: Claude Code's HTTP hooks (docs/hooks.md).

interface HookQuery {
  recipient: string;
  event?: string;
  project?: string;
  agent?: string;
}

export function hooksRoutes(router: Router, deps: AcceptEventDeps): void {
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
}
