import express, { Router, type RequestHandler } from "express";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { authenticate, type ApiKeyCache } from "@svc/engine";
import { addLogContext } from "@svc/log";
import { createSvcMcpServer } from "@svc/mcp";
import { principalOf } from "../auth/require-key";
import { holdBodyError, raiseHeldBodyError, withDepthLimit } from "../http/body-parsing";
import { sendProblem } from "../http/problem";
import type { RouteDeps } from "../routes/route-deps";
import { clientGone } from "../http/client-gone";
import { inProcessApi, type InProcessDeps } from "./in-process-api";

// MCP over Streamable HTTP at /mcp (docs/mcp.md), outside the OpenAPI validator like the hosted
// pages. Stateless: every POST stands alone, with a new MCP server built for the key it carries, so
// tools/list follows the key's scopes and agent. The key is checked as on every REST request
// (401 with a Bearer challenge, then the rate limit); no OAuth metadata is served, so clients
// with a static `Authorization: Bearer` header just work.

export const MCP_PATH = "/mcp";

export interface McpRouterDeps extends RouteDeps, Pick<InProcessDeps, "approvalWaiters"> {
  apiKeyCache?: ApiKeyCache;
  /** The REST API's per-key rate limit, applied to every POST. */
  rateLimit: RequestHandler;
}

export function mcpRouter(deps: McpRouterDeps): Router {
  const router = Router();
  const json = withDepthLimit(
    express.json({ limit: deps.config.api.max_body_bytes, type: ["application/json"] }),
  );

  const requireKey: RequestHandler = async (req, res, next) => {
    const principal = await authenticate(deps, req.headers.authorization);
    res.locals.principal = principal;
    addLogContext({ api_key_id: principal.keyId });
    next();
  };

  const serve: RequestHandler = async (req, res) => {
    const principal = principalOf(res);
    const server = createSvcMcpServer({
      api: inProcessApi(deps, principal, clientGone(res)),
      caller: principal,
      onError: (error, tool) => deps.logger.error("mcp tool failed", { tool, error }),
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };

  // Authentication before body errors: a bad body without a key is 401 (docs/api.md "Request rules").
  router.post("/", json, holdBodyError, requireKey, deps.rateLimit, raiseHeldBodyError, serve);
  // Stateless: no stream to resume (GET) and no session to end (DELETE).
  router.all("/", (req, res) => {
    sendProblem(req, res, {
      status: 405,
      detail: `${req.method} is not allowed on ${MCP_PATH}; MCP clients POST each message (stateless)`,
      headers: { Allow: "POST" },
    });
  });
  return router;
}
