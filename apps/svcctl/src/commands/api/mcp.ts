import type { Writable } from "node:stream";
import { Command } from "commander";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createSvcMcpServer, svcApiOverHttp } from "@svc/mcp";
import { CliError } from "../../cli-error";
import { EXIT } from "../../exit-codes";
import type { Session } from "../../session";
import { withExample } from "./api-command";

// `svcctl mcp` (docs/mcp.md): the MCP tools over stdio for a local agent, calling the HTTP API
// with SVC_URL and SVC_API_KEY through the typed client. The key's scopes and agent come from
// GET /v1/whoami, so tools/list shows what this key may call, as /mcp does. stdout carries only
// the protocol; anything else goes to stderr.

// Longer than the longest wait get_approval may ask for (30 s), so a waiting read is never cut short.
const TOOL_CALL_TIMEOUT_MS = 45_000;

export function mcpCommand(parent: Command, s: Session): Command {
  const mcp = parent
    .command("mcp")
    .description(
      "serve svc's MCP tools over stdio (send_message, review_message, request_approval, get_approval)",
    )
    .action(async () => {
      const { stdin, stdout } = s.io;
      if (!stdin)
        throw new CliError(EXIT.usage, "svcctl mcp needs stdin and stdout (an MCP client starts it)");
      const api = s.api({ timeoutMs: TOOL_CALL_TIMEOUT_MS });
      const key = await api.call(api.client.GET("/v1/whoami"));
      const server = createSvcMcpServer({
        api: svcApiOverHttp(api.client),
        caller: { scopes: key.scopes, agentKey: key.agent },
        onError: (error, tool) =>
          s.err(`svcctl mcp: ${tool} failed: ${error instanceof Error ? error.message : String(error)}`),
      });
      const closed = new Promise<void>((resolve) => (server.onclose = resolve));
      await server.connect(
        new StdioServerTransport(stdin as NodeJS.ReadStream, stdout as unknown as Writable),
      );
      s.err(`svcctl mcp: serving ${api.url} as key ${key.id}${key.agent ? ` (agent ${key.agent})` : ""}`);
      stdin.once("end", () => void server.close());
      await closed;
    });
  return withExample(
    mcp,
    "$ SVC_URL=http://localhost:8080 SVC_API_KEY=svc_… svcctl mcp",
    "Client configuration (Claude Code, Claude Desktop, Cursor): docs/mcp.md",
  );
}
