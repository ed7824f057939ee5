import { createProvider } from "../create-provider";
import type { SendResult } from "../provider";
import { channel, providerContext, sendRequest, useHttpServer, type Reply } from "./fixtures";
import { itClassifies, itRetriesARefusedConnection, itRetriesATimeout } from "./provider-cases";

const context = providerContext({ SLACK_BOT_TOKEN: "xoxb-test-token" });

describe("slack provider", () => {
  const server = useHttpServer([
    { status: 200, body: { ok: true, channel: "C0123", ts: "1740830400.000100" } },
  ]);

  const slack = (settings: Record<string, unknown> = {}) =>
    createProvider(
      "slack",
      channel({
        provider: "slack",
        token_env: "SLACK_BOT_TOKEN",
        base_url: `${server.url}/api`,
        ...settings,
      }),
      context,
    );
  const request = sendRequest({
    channel: "slack",
    to: "C0123",
    content: {
      title: "Deploy <prod> done",
      body: "All 3 services & 2 jobs are up.",
      url: "https://ci.example/run/7",
      thread: null,
    },
  });

  it("posts chat.postMessage with the bot token, text and blocks", async () => {
    await expect(slack().send(request)).resolves.toEqual({
      ok: true,
      providerMessageId: "1740830400.000100",
    });
    const [received] = server.requests;
    expect(received?.url).toBe("/api/chat.postMessage");
    expect(received?.headers.authorization).toBe("Bearer xoxb-test-token");
    expect(received?.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(received?.body.toString() ?? "")).toEqual({
      channel: "C0123",
      text: "Deploy <prod> done\nAll 3 services & 2 jobs are up.\nhttps://ci.example/run/7",
      blocks: [
        {
          type: "section",
          text: {
            type: "mrkdwn",
            text: "*<https://ci.example/run/7|Deploy &lt;prod&gt; done>*\nAll 3 services &amp; 2 jobs are up.",
          },
        },
      ],
      unfurl_links: false,
      unfurl_media: false,
      metadata: { event_type: "svc_message", event_payload: { message_id: request.messageId } },
    });
  });

  it("shows a plain bold title without a link", async () => {
    await slack().send({ ...request, content: { ...request.content, url: null } });
    const body = JSON.parse(server.requests[0]?.body.toString() ?? "");
    expect(body.blocks[0].text.text).toBe("*Deploy &lt;prod&gt; done*\nAll 3 services &amp; 2 jobs are up.");
    expect(body.text).toBe("Deploy <prod> done\nAll 3 services & 2 jobs are up.");
  });

  const cases: [string, Reply, SendResult][] = [
    [
      "ok:false ratelimited",
      { status: 200, body: { ok: false, error: "ratelimited" } },
      { ok: false, retryable: true, error: "slack ratelimited" },
    ],
    [
      "ok:false internal_error",
      { status: 200, body: { ok: false, error: "internal_error" } },
      { ok: false, retryable: true, error: "slack internal_error" },
    ],
    [
      "ok:false channel_not_found",
      { status: 200, body: { ok: false, error: "channel_not_found" } },
      { ok: false, retryable: false, error: "slack channel_not_found" },
    ],
    [
      "ok:false invalid_auth",
      { status: 200, body: { ok: false, error: "invalid_auth" } },
      { ok: false, retryable: false, error: "slack invalid_auth" },
    ],
    [
      "200 without JSON",
      { status: 200, body: "<html>" },
      { ok: false, retryable: false, error: "slack invalid_response" },
    ],
    ["HTTP 400", { status: 400, body: "" }, { ok: false, retryable: false, error: "slack 400" }],
    ["HTTP 404", { status: 404, body: "" }, { ok: false, retryable: false, error: "slack 404" }],
    ["HTTP 408", { status: 408, body: "" }, { ok: false, retryable: true, error: "slack 408" }],
    [
      "HTTP 429 with Retry-After",
      { status: 429, headers: { "retry-after": "3" }, body: "" },
      { ok: false, retryable: true, error: "slack 429", retryAfterMs: 3000 },
    ],
    ["HTTP 500", { status: 500, body: "" }, { ok: false, retryable: true, error: "slack 500" }],
  ];
  itClassifies(
    cases,
    (reply) => (server.replies = [reply]),
    () => slack().send(request),
  );

  itRetriesATimeout({
    provider: "slack",
    timeoutMs: 100,
    hang: () => (server.replies = [{ status: 200, hang: true }]),
    send: (timeoutMs) => slack({ timeout_ms: timeoutMs }).send(request),
  });

  itRetriesARefusedConnection("slack", (origin) => slack({ base_url: origin }).send(request));
});
