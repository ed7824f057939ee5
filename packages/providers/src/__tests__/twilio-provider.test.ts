import { createProvider } from "../create-provider";
import type { SendResult } from "../provider";
import { channel, providerContext, sendRequest, useHttpServer, type Reply } from "./fixtures";
import { itClassifies, itRetriesARefusedConnection, itRetriesATimeout } from "./provider-cases";

const context = providerContext({ TWILIO_AUTH_TOKEN: "twilio-auth-token" });
const SID = "AC0123456789abcdef0123456789abcdef";

describe("twilio provider", () => {
  const server = useHttpServer([{ status: 201, body: { sid: "SM0123", status: "queued" } }]);

  const sms = (settings: Record<string, unknown> = { from: "+15550100" }) =>
    createProvider(
      "sms",
      channel({
        provider: "twilio",
        account_sid: SID,
        auth_token_env: "TWILIO_AUTH_TOKEN",
        base_url: server.url,
        ...settings,
      }),
      context,
    );
  const request = sendRequest({ channel: "sms", to: "+15550199" });

  it("posts the form to the Messages resource with basic auth and the idempotency token", async () => {
    await expect(sms().send(request)).resolves.toEqual({ ok: true, providerMessageId: "SM0123" });
    const [received] = server.requests;
    expect(received?.method).toBe("POST");
    expect(received?.url).toBe(`/2010-04-01/Accounts/${SID}/Messages.json`);
    expect(received?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${SID}:twilio-auth-token`).toString("base64")}`,
    );
    expect(received?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(received?.headers["i-twilio-idempotency-token"]).toBe(request.messageId);
    expect(Object.fromEntries(new URLSearchParams(received?.body.toString()))).toEqual({
      To: "+15550199",
      From: "+15550100",
      Body: "Order 1001 is on its way.\n\nhttps://shop.example/o/1001",
    });
  });

  it("sends through a messaging service with a status callback", async () => {
    await sms({
      messaging_service_sid: "MG0123",
      status_callback_url: "https://svc.example/v1/inbound/smsprovider",
    }).send(request);
    expect(Object.fromEntries(new URLSearchParams(server.requests[0]?.body.toString()))).toEqual({
      To: "+15550199",
      MessagingServiceSid: "MG0123",
      Body: "Order 1001 is on its way.\n\nhttps://shop.example/o/1001",
      StatusCallback: "https://svc.example/v1/inbound/smsprovider",
    });
  });

  const twilioError = (status: number, code: number): Reply => ({
    status,
    body: { code, message: "details", more_info: `https://www.twilio.com/docs/errors/${code}`, status },
  });
  const cases: [string, Reply, SendResult][] = [
    [
      "400 invalid number",
      twilioError(400, 21211),
      { ok: false, retryable: false, error: "twilio 400 code 21211" },
    ],
    [
      "400 opted out",
      twilioError(400, 21610),
      { ok: false, retryable: false, error: "twilio 400 code 21610" },
    ],
    ["401", twilioError(401, 20003), { ok: false, retryable: false, error: "twilio 401 code 20003" }],
    ["404", twilioError(404, 20404), { ok: false, retryable: false, error: "twilio 404 code 20404" }],
    ["408", { status: 408, body: "" }, { ok: false, retryable: true, error: "twilio 408" }],
    [
      "429 with Retry-After",
      { ...twilioError(429, 20429), headers: { "retry-after": "10" } },
      { ok: false, retryable: true, error: "twilio 429 code 20429", retryAfterMs: 10_000 },
    ],
    ["500", { status: 500, body: "oops" }, { ok: false, retryable: true, error: "twilio 500" }],
    ["503", twilioError(503, 20503), { ok: false, retryable: true, error: "twilio 503 code 20503" }],
  ];
  itClassifies(
    cases,
    (reply) => (server.replies = [reply]),
    () => sms().send(request),
  );

  itRetriesATimeout({
    provider: "twilio",
    timeoutMs: 100,
    hang: () => (server.replies = [{ status: 201, hang: true }]),
    send: (timeoutMs) => sms({ from: "+15550100", timeout_ms: timeoutMs }).send(request),
  });

  itRetriesARefusedConnection("twilio", (origin) => sms({ from: "+1", base_url: origin }).send(request));
});
