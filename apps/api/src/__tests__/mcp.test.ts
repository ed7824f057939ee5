import type { AddressInfo } from "node:net";
import { spawn } from "node:child_process";
import type { Server } from "node:http";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import { startApprovalsHarness, type ApprovalsHarness } from "./approval-fixtures";

// The MCP tools (docs/mcp.md) through the SDK's own Client, over Streamable HTTP at /mcp of an API
// listening on a port, and over stdio by spawning `svcctl mcp` against that API.

const ROOT = path.resolve(__dirname, "../../../..");
const REGISTER = path.join(ROOT, "scripts/register-ts.cjs");
const SVCCTL = path.join(ROOT, "apps/svcctl/src/main.ts");
const ALL_TOOLS = ["send_message", "review_message", "request_approval", "get_approval"];

let h: ApprovalsHarness;
let server: Server;
let url: string;
let readOnlyKey: string;
let eventsOnlyKey: string;
const clients: Client[] = [];

beforeAll(async () => {
  h = await startApprovalsHarness("mcp");
  readOnlyKey = await h.keyWith(["messages:read"]);
  eventsOnlyKey = await h.keyWith(["events:write"]);
  server = h.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await new Promise((resolve) => server.close(resolve));
  await h.close();
}, 30_000);

const overHttp = (key: string): Transport =>
  new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
const overStdio = (key: string): Transport =>
  new StdioClientTransport({
    command: process.execPath,
    args: ["-r", REGISTER, SVCCTL, "mcp"],
    env: { PATH: process.env.PATH ?? "", SVC_URL: url, SVC_API_KEY: key },
    stderr: "ignore",
  });

async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: "svc-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** What a result carries: the structured content, and the same JSON as its only text. */
function structured(result: CallToolResult): Record<string, unknown> {
  expect(result.isError).toBeFalsy();
  expect(result.content).toEqual([{ type: "text", text: JSON.stringify(result.structuredContent) }]);
  return result.structuredContent as Record<string, unknown>;
}

/** An isError result's problem (its text is the problem's JSON). */
function problem(result: CallToolResult): Record<string, unknown> {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const [block] = result.content as { type: string; text: string }[];
  return JSON.parse(block!.text) as Record<string, unknown>;
}

const validator = new AjvJsonSchemaValidator();
function expectValidOutput(tools: Tool[], name: string, value: unknown) {
  const schema = tools.find((tool) => tool.name === name)!.outputSchema!;
  expect(validator.getValidator(schema)(value)).toEqual({
    valid: true,
    data: value,
    errorMessage: undefined,
  });
}

const sendBody = (extra: Record<string, unknown> = {}) => ({
  recipient: "alice",
  template: "deploy",
  category: "transactional",
  channels: ["console"],
  data: { version: "2.0.0" },
  ...extra,
});

describe.each([
  ["Streamable HTTP", overHttp],
  ["stdio (svcctl mcp)", overStdio],
] as const)("over %s", (transportName, transportFor) => {
  let agent: Client;
  let reviewer: Client;
  let agentTools: Tool[];
  let reviewerTools: Tool[];

  beforeAll(async () => {
    [agent, reviewer] = await Promise.all([
      connect(transportFor(h.agentKey)),
      connect(transportFor(h.reviewerKey)),
    ]);
    agentTools = (await agent.listTools()).tools;
    reviewerTools = (await reviewer.listTools()).tools;
  }, 60_000);

  it("lists the tools each kind of key may call; an agent key does not see review_message", async () => {
    const names = (tools: Tool[]) => tools.map((tool) => tool.name);
    expect(names(reviewerTools)).toEqual(ALL_TOOLS);
    expect(names(agentTools)).toEqual(["send_message", "request_approval", "get_approval"]);
    const [admin, readOnly, eventsOnly] = await Promise.all(
      [h.adminKey, readOnlyKey, eventsOnlyKey].map((key) => connect(transportFor(key))),
    );
    expect(names((await admin!.listTools()).tools)).toEqual(ALL_TOOLS);
    expect(names((await readOnly!.listTools()).tools)).toEqual(["get_approval"]);
    expect(names((await eventsOnly!.listTools()).tools)).toEqual([]);
  }, 60_000);

  it("describes every tool with schemas from the OpenAPI document", () => {
    const send = reviewerTools.find((tool) => tool.name === "send_message")!;
    expect(send.inputSchema).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["recipient", "template", "category", "channels"],
      properties: { importance: { type: "string", enum: ["low", "normal", "high", "critical"] } },
    });
    expect(send.outputSchema).toMatchObject({
      type: "object",
      properties: { status: { enum: expect.arrayContaining(["queued", "pending_approval", "suppressed"]) } },
    });
    expect(JSON.stringify(reviewerTools)).not.toContain("$ref");
    for (const tool of reviewerTools) {
      expect(tool.description).toMatch(/\n/); // several paragraphs written for the agent
      expect(tool.outputSchema).toMatchObject({ type: "object" });
    }
  });

  it("send_message → review_message: held for approval, then approved and queued", async () => {
    const sent = await agent.callTool({
      name: "send_message",
      arguments: sendBody({ idempotency_key: `mcp-${transportName}-1` }),
    });
    const message = structured(sent as CallToolResult);
    expectValidOutput(agentTools, "send_message", message);
    expect(message).toMatchObject({ status: "pending_approval", agent: "bot", recipient: "alice" });

    const reviewed = await reviewer.callTool({
      name: "review_message",
      arguments: { message_id: message.id, decision: "approve", reason: "looks right" },
    });
    const approved = structured(reviewed as CallToolResult);
    expectValidOutput(reviewerTools, "review_message", approved);
    expect(approved).toMatchObject({ id: message.id, status: "queued", status_reason: null });
    expect(approved.reviewed_by).toEqual(expect.any(String));

    const again = await agent.callTool({
      name: "send_message",
      arguments: sendBody({ idempotency_key: `mcp-${transportName}-2` }),
    });
    const rejected = structured(
      (await reviewer.callTool({
        name: "review_message",
        arguments: {
          message_id: structured(again as CallToolResult).id,
          decision: "reject",
          reason: "not now",
        },
      })) as CallToolResult,
    );
    expect(rejected).toMatchObject({ status: "cancelled", status_reason: "rejected: not now" });
  }, 30_000);

  it("request_approval → get_approval: the request, pending, read back", async () => {
    const requested = structured(
      (await agent.callTool({
        name: "request_approval",
        arguments: { title: "Roll back 2.0.0?", reviewers: ["rev-a"], metadata: { release: "2.0.0" } },
      })) as CallToolResult,
    );
    expectValidOutput(agentTools, "request_approval", requested);
    expect(requested).toMatchObject({
      status: "pending",
      agent: "bot",
      title: "Roll back 2.0.0?",
      body: "",
      reviewers: ["rev-a"],
      metadata: { release: "2.0.0" },
    });

    const read = structured(
      (await agent.callTool({
        name: "get_approval",
        arguments: { approval_id: requested.id },
      })) as CallToolResult,
    );
    expectValidOutput(agentTools, "get_approval", read);
    expect(read).toEqual(requested);

    // wait_seconds holds the read (a decision would end it: approvals-wait.test.ts); undecided, it
    // answers the pending request when the wait ends.
    const started = Date.now();
    const waited = structured(
      (await agent.callTool({
        name: "get_approval",
        arguments: { approval_id: requested.id, wait_seconds: 1 },
      })) as CallToolResult,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(waited).toEqual(requested);
  }, 30_000);

  it("an agent sending in a category it may not use gets isError with the REST twin's problem", async () => {
    const body = sendBody({ category: "marketing" });
    const refused = problem(
      (await agent.callTool({ name: "send_message", arguments: body })) as CallToolResult,
    );
    const rest = await h.as(h.agentKey).post("/v1/messages").send(body).expect(403);
    expect(refused).toMatchObject({ status: 403, title: "Forbidden", detail: rest.body.detail });
  });

  it("refuses review_message to an agent key (403), bad arguments (422) and unknown ids (404)", async () => {
    expect(
      problem(
        (await agent.callTool({
          name: "review_message",
          arguments: { message_id: "msg_1", decision: "approve" },
        })) as CallToolResult,
      ),
    ).toEqual({
      type: "about:blank",
      title: "Forbidden",
      status: 403,
      detail: "agent keys may not approve or reject",
    });
    const invalid = problem(
      (await agent.callTool({
        name: "send_message",
        arguments: { recipient: "alice", template: "deploy", category: "transactional", colour: "red" },
      })) as CallToolResult,
    );
    expect(invalid).toMatchObject({ status: 422, title: "Unprocessable content" });
    expect(invalid.errors).toEqual([
      { loc: ["arguments", "channels"], msg: "is required", type: "missing" },
      { loc: ["arguments", "colour"], msg: "unknown field", type: "additional_properties" },
    ]);
    expect(
      problem(
        (await agent.callTool({
          name: "get_approval",
          arguments: { approval_id: "apr_missing" },
        })) as CallToolResult,
      ),
    ).toMatchObject({ status: 404, title: "Not found" });
  });
});

describe("Streamable HTTP specifics", () => {
  it("no key or an unknown key is 401 with a Bearer challenge, as on the REST API", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
    };
    const headerSets: Record<string, string>[] = [{}, { Authorization: `Bearer svc_${"A".repeat(43)}` }];
    for (const headers of headerSets) {
      const res = await fetch(`${url}/mcp`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify(initialize),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toMatchObject({ status: 401, title: "Unauthorized" });
    }
    // The SDK's client without a key cannot connect.
    const client = new Client({ name: "svc-test", version: "1.0.0" });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)))).rejects.toThrow(
      /401/,
    );
  });

  it("GET and DELETE answer 405 (stateless: no stream, no session); no OAuth metadata is advertised", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${url}/mcp`, { method, headers: { Authorization: `Bearer ${h.adminKey}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
    for (const wellKnown of [
      "oauth-protected-resource",
      "oauth-protected-resource/mcp",
      "oauth-authorization-server",
    ]) {
      expect((await fetch(`${url}/.well-known/${wellKnown}`)).status).toBe(404);
    }
  });

  it("each POST stands alone: no session id is handed out", async () => {
    const res = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Authorization: `Bearer ${h.agentKey}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list", params: {} }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    const body = (await res.json()) as { id: number; result: { tools: { name: string }[] } };
    expect(body.id).toBe(7);
    expect(body.result.tools.map((tool) => tool.name)).toEqual([
      "send_message",
      "request_approval",
      "get_approval",
    ]);
  });
});

describe("svcctl mcp specifics", () => {
  function runMcp(env: Record<string, string>) {
    return new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ["-r", REGISTER, SVCCTL, "mcp"], {
        env: { PATH: process.env.PATH ?? "", ...env },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("close", (code) => resolve({ code, stderr }));
    });
  }

  it("refuses to start without a key (exit 3) or with an unknown one (401, exit 3)", async () => {
    expect(await runMcp({ SVC_URL: url })).toEqual({
      code: 3,
      stderr: "error: no API key: set SVC_API_KEY or pass --key\n",
    });
    expect(await runMcp({ SVC_URL: url, SVC_API_KEY: `svc_${"A".repeat(43)}` })).toEqual({
      code: 3,
      stderr: "error: 401 Unauthorized: unknown API key\n",
    });
  }, 30_000);
});
