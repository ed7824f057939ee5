import { createProvider } from "../create-provider";
import type { SendResult } from "../provider";
import { verifySignature } from "../webhook-signature";
import { channel, NOW, providerContext, sendRequest, useHttpServer, type Reply } from "./fixtures";
import { itClassifies, itRetriesARefusedConnection, itRetriesATimeout } from "./provider-cases";

const context = providerContext({ HOOK_SECRET: "hook-secret-value" });

describe("webhook provider", () => {
  const server = useHttpServer([{ status: 202, body: {} }]);

  const hook = (settings: Record<string, unknown> = {}) =>
    createProvider(
      "hook",
      channel({ provider: "webhook", url: `${server.url}/svc-hook`, secret_env: "HOOK_SECRET", ...settings }),
      context,
    );

  it("posts the documented JSON, signed, with the message id as idempotency key", async () => {
    const request = sendRequest({ trackingToken: "trk_abc" });
    await expect(hook().send(request)).resolves.toEqual({ ok: true });

    expect(server.requests).toHaveLength(1);
    const [received] = server.requests;
    expect(received?.method).toBe("POST");
    expect(received?.url).toBe("/svc-hook");
    expect(received?.headers["content-type"]).toBe("application/json");
    expect(received?.headers["idempotency-key"]).toBe(request.messageId);
    expect(received?.headers["user-agent"]).toBe("svc");
    const raw = received?.body.toString("utf8") ?? "";
    expect(JSON.parse(raw)).toEqual({
      id: request.messageId,
      channel: "hook",
      to: "user-42",
      recipient: { external_id: "user-42", locale: "en", timezone: "Europe/Berlin" },
      category: "account",
      importance: "normal",
      content: {
        title: "Your order shipped",
        body: "Order 1001 is on its way.",
        url: "https://shop.example/o/1001",
        thread: "order-1001",
      },
      data: { order: 1001 },
      tracking_token: "trk_abc",
    });
    const signature = received?.headers["svc-signature"] as string;
    expect(signature).toMatch(new RegExp(`^t=${NOW.getTime() / 1000},v1=[0-9a-f]{64}$`));
    expect(verifySignature("hook-secret-value", received?.body ?? "", signature, { now: NOW })).toBe(true);
    expect(verifySignature("wrong", received?.body ?? "", signature, { now: NOW })).toBe(false);
  });

  it("sends tracking_token null when there is none", async () => {
    await hook().send(sendRequest());
    expect(JSON.parse(server.requests[0]?.body.toString() ?? "{}").tracking_token).toBeNull();
  });

  const cases: [string, Reply, SendResult][] = [
    ["200", { status: 200 }, { ok: true }],
    ["204", { status: 204, body: "" }, { ok: true }],
    ["400", { status: 400 }, { ok: false, retryable: false, error: "webhook 400" }],
    ["401", { status: 401 }, { ok: false, retryable: false, error: "webhook 401" }],
    ["404", { status: 404 }, { ok: false, retryable: false, error: "webhook 404" }],
    ["410", { status: 410 }, { ok: false, retryable: false, error: "webhook 410" }],
    ["408", { status: 408 }, { ok: false, retryable: true, error: "webhook 408" }],
    [
      "429 with Retry-After",
      { status: 429, headers: { "retry-after": "30" } },
      { ok: false, retryable: true, error: "webhook 429", retryAfterMs: 30_000 },
    ],
    ["500", { status: 500 }, { ok: false, retryable: true, error: "webhook 500" }],
    [
      "503 with Retry-After",
      { status: 503, headers: { "retry-after": "2" } },
      { ok: false, retryable: true, error: "webhook 503", retryAfterMs: 2000 },
    ],
    [
      "302",
      { status: 302, headers: { location: "/elsewhere" } },
      { ok: false, retryable: false, error: "webhook 302" },
    ],
  ];
  itClassifies(
    cases,
    (reply) => (server.replies = [reply]),
    () => hook().send(sendRequest()),
  );

  itRetriesATimeout({
    provider: "webhook",
    timeoutMs: 150,
    hang: () => (server.replies = [{ status: 200, hang: true }]),
    send: (timeoutMs) => hook({ timeout_ms: timeoutMs }).send(sendRequest()),
  });

  itRetriesARefusedConnection("webhook", (origin) => hook({ url: `${origin}/x` }).send(sendRequest()));
});
