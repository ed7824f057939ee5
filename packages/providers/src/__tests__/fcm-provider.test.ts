import { generateKeyPairSync } from "node:crypto";
import { createProvider } from "../create-provider";
import type { SendResult } from "../provider";
import { decodeJwt } from "./decode-jwt";
import { channel, NOW, sendRequest, useHttpServer, type RecordedRequest, type Reply } from "./fixtures";
import { itClassifies, itRetriesATimeout } from "./provider-cases";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const PEM = privateKey.export({ type: "pkcs8", format: "pem" }).toString();

const fcmError = (status: number, rpcStatus: string, errorCode?: string): Reply => ({
  status,
  body: {
    error: {
      code: status,
      message: "details",
      status: rpcStatus,
      details: errorCode
        ? [{ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode }]
        : [],
    },
  },
});

describe("fcm provider", () => {
  const server = useHttpServer();
  let clock: Date;
  let sendReply: Reply;
  let tokenReply: Reply;
  let tokensIssued: number;
  const tokenRequests = () => server.requests.filter((request) => request.url === "/token");
  const sends = () => server.requests.filter((request) => request.url !== "/token");

  beforeEach(() => {
    clock = NOW;
    tokensIssued = 0;
    sendReply = { status: 200, body: { name: "projects/shop-app/messages/0:123" } };
    tokenReply = { status: 200, body: {} };
    server.route = (request: RecordedRequest) => {
      if (request.url !== "/token") return sendReply;
      if (tokenReply.status !== 200) return tokenReply;
      tokensIssued += 1;
      return {
        status: 200,
        body: { access_token: `ya29.token-${tokensIssued}`, expires_in: 3599, token_type: "Bearer" },
      };
    };
  });

  const fcm = (settings: Record<string, unknown> = {}) =>
    createProvider(
      "push",
      channel({
        provider: "fcm",
        service_account_env: "FCM_SERVICE_ACCOUNT",
        base_url: server.url,
        ...settings,
      }),
      {
        env: {
          FCM_SERVICE_ACCOUNT: JSON.stringify({
            type: "service_account",
            project_id: "shop-app",
            private_key_id: "key-1",
            private_key: PEM,
            client_email: "svc@shop-app.iam.gserviceaccount.com",
            token_uri: `${server.url}/token`,
          }),
        },
        now: () => clock,
      },
    );
  const request = sendRequest({ channel: "push", to: "device-token-1", importance: "high" });

  it("exchanges a signed service-account JWT for a token, then sends the message", async () => {
    await expect(fcm().send(request)).resolves.toEqual({
      ok: true,
      providerMessageId: "projects/shop-app/messages/0:123",
    });

    const [exchange] = tokenRequests();
    expect(exchange?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const form = new URLSearchParams(exchange?.body.toString());
    expect(form.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    const jwt = decodeJwt(form.get("assertion") ?? "", publicKey);
    expect(jwt.valid).toBe(true);
    expect(jwt.header).toEqual({ alg: "RS256", typ: "JWT", kid: "key-1" });
    const iat = NOW.getTime() / 1000;
    expect(jwt.claims).toEqual({
      iss: "svc@shop-app.iam.gserviceaccount.com",
      scope: "https://www.googleapis.com/auth/firebase.messaging",
      aud: `${server.url}/token`,
      iat,
      exp: iat + 3600,
    });

    const [send] = sends();
    expect(send?.url).toBe("/v1/projects/shop-app/messages:send");
    expect(send?.headers.authorization).toBe("Bearer ya29.token-1");
    expect(send?.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(send?.body.toString() ?? "")).toEqual({
      message: {
        token: "device-token-1",
        notification: { title: "Your order shipped", body: "Order 1001 is on its way." },
        data: {
          message_id: request.messageId,
          category: "account",
          importance: "high",
          url: "https://shop.example/o/1001",
          thread: "order-1001",
        },
        android: { priority: "HIGH", notification: { tag: "order-1001" } },
        apns: { headers: { "apns-priority": "10" }, payload: { aps: { "thread-id": "order-1001" } } },
      },
    });
  });

  it("sends a normal message without thread fields", async () => {
    await fcm({ project_id: "other-project" }).send(
      sendRequest({ to: "device-token-1", content: { title: "t", body: "b", url: null, thread: null } }),
    );
    const [send] = sends();
    expect(send?.url).toBe("/v1/projects/other-project/messages:send");
    expect(JSON.parse(send?.body.toString() ?? "").message).toEqual({
      token: "device-token-1",
      notification: { title: "t", body: "b" },
      data: { message_id: "msg_01JNE7Z5Q8R2W3X4Y5Z6A7B8C9", category: "account", importance: "normal" },
      android: { priority: "NORMAL" },
      apns: { headers: { "apns-priority": "5" }, payload: { aps: {} } },
    });
  });

  it("reuses the access token until shortly before it expires", async () => {
    const provider = fcm();
    await provider.send(request);
    clock = new Date(NOW.getTime() + 3500 * 1000);
    await provider.send(request);
    expect(tokenRequests()).toHaveLength(1);
    clock = new Date(NOW.getTime() + 3560 * 1000);
    await provider.send(request);
    expect(tokenRequests()).toHaveLength(2);
    expect(sends().map((send) => send.headers.authorization)).toEqual([
      "Bearer ya29.token-1",
      "Bearer ya29.token-1",
      "Bearer ya29.token-2",
    ]);
  });

  it("shares one token exchange among concurrent sends", async () => {
    const provider = fcm();
    await Promise.all([provider.send(request), provider.send(request), provider.send(request)]);
    expect(tokenRequests()).toHaveLength(1);
    expect(sends()).toHaveLength(3);
  });

  it("drops a refused token and fetches a new one on the next try", async () => {
    const provider = fcm();
    sendReply = fcmError(401, "UNAUTHENTICATED");
    await expect(provider.send(request)).resolves.toEqual({
      ok: false,
      retryable: true,
      error: "fcm 401 UNAUTHENTICATED",
    });
    sendReply = { status: 200, body: { name: "n" } };
    await provider.send(request);
    expect(sends().map((send) => send.headers.authorization)).toEqual([
      "Bearer ya29.token-1",
      "Bearer ya29.token-2",
    ]);
  });

  const cases: [string, Reply, SendResult][] = [
    [
      "404 UNREGISTERED",
      fcmError(404, "NOT_FOUND", "UNREGISTERED"),
      { ok: false, retryable: false, error: "fcm 404 UNREGISTERED" },
    ],
    [
      "400 INVALID_ARGUMENT",
      fcmError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT"),
      { ok: false, retryable: false, error: "fcm 400 INVALID_ARGUMENT" },
    ],
    [
      "403 SENDER_ID_MISMATCH",
      fcmError(403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH"),
      { ok: false, retryable: false, error: "fcm 403 SENDER_ID_MISMATCH" },
    ],
    ["408", { status: 408, body: "" }, { ok: false, retryable: true, error: "fcm 408" }],
    [
      "429 QUOTA_EXCEEDED with Retry-After",
      { ...fcmError(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"), headers: { "retry-after": "60" } },
      { ok: false, retryable: true, error: "fcm 429 QUOTA_EXCEEDED", retryAfterMs: 60_000 },
    ],
    [
      "500 INTERNAL",
      fcmError(500, "INTERNAL", "INTERNAL"),
      { ok: false, retryable: true, error: "fcm 500 INTERNAL" },
    ],
    [
      "503 UNAVAILABLE",
      fcmError(503, "UNAVAILABLE", "UNAVAILABLE"),
      { ok: false, retryable: true, error: "fcm 503 UNAVAILABLE" },
    ],
  ];
  itClassifies(
    cases,
    (reply) => (sendReply = reply),
    () => fcm().send(request),
  );

  it.each([
    [
      { status: 400, body: { error: "invalid_grant", error_description: "Invalid JWT Signature." } },
      { ok: false, retryable: false, error: "fcm token 400 invalid_grant" },
    ],
    [
      { status: 503, body: "" },
      { ok: false, retryable: true, error: "fcm token 503" },
    ],
  ] as [Reply, SendResult][])("classifies a failed token exchange %#", async (reply, expected) => {
    tokenReply = reply;
    await expect(fcm().send(request)).resolves.toEqual(expected);
    expect(sends()).toHaveLength(0);
  });

  itRetriesATimeout({
    provider: "fcm",
    timeoutMs: 100,
    hang: () => (sendReply = { status: 200, hang: true }),
    send: (timeoutMs) => fcm({ timeout_ms: timeoutMs }).send(request),
  });

  it("names the setting when the service account is unusable", () => {
    const make = (value: string) => () =>
      createProvider("push", channel({ provider: "fcm", service_account_env: "SA" }), {
        env: { SA: value },
        now: () => NOW,
      });
    expect(make("{")).toThrow(
      "channels.push.service_account_env: the variable does not hold service account JSON",
    );
    expect(make('{"client_email":"a@b"}')).toThrow(
      "channels.push.service_account_env: the service account JSON lacks client_email or private_key",
    );
    expect(make('{"client_email":"a@b","private_key":"nope"}')).toThrow(
      "channels.push.service_account_env: the service account private_key is not a PEM private key",
    );
    expect(make(JSON.stringify({ client_email: "a@b", private_key: PEM }))).toThrow(
      "channels.push.project_id: required when the service account has no project_id",
    );
  });
});
