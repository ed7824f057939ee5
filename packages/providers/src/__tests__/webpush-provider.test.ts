import { createECDH, createPublicKey, randomBytes, verify } from "node:crypto";
import webpush from "web-push";
import { createProvider } from "../create-provider";
import type { SendResult } from "../provider";
import { pushTopic } from "../webpush-provider";
import {
  channel,
  NOW,
  refusedPort,
  sendRequest,
  startHttpServer,
  type Reply,
  type TestHttpServer,
} from "./fixtures";
// eslint-disable-next-line @typescript-eslint/no-require-imports -- web-push's own decrypter, for the test only
const ece = require("http_ece") as { decrypt(buffer: Buffer, params: Record<string, unknown>): Buffer };

const vapid = webpush.generateVAPIDKeys();
const env = { VAPID_PRIVATE_KEY: vapid.privateKey };
const context = { env, now: () => NOW };

// The browser side: a P-256 key pair and an auth secret, as PushSubscription.toJSON() gives them.
const browserKeys = createECDH("prime256v1");
browserKeys.generateKeys();
const authSecret = randomBytes(16);

function vapidPublicKeyObject() {
  const point = Buffer.from(vapid.publicKey, "base64url");
  return createPublicKey({
    key: {
      kty: "EC",
      crv: "P-256",
      x: point.subarray(1, 33).toString("base64url"),
      y: point.subarray(33, 65).toString("base64url"),
    },
    format: "jwk",
  });
}

describe("webpush provider", () => {
  let server: TestHttpServer;
  let subscription: string;
  beforeEach(async () => {
    server = await startHttpServer([
      { status: 201, headers: { location: "https://push.example/m/123" }, body: "" },
    ]);
    subscription = JSON.stringify({
      endpoint: `${server.url}/push/sub-1`,
      keys: {
        p256dh: browserKeys.getPublicKey().toString("base64url"),
        auth: authSecret.toString("base64url"),
      },
    });
  });
  afterEach(() => server.close());

  const push = (settings: Record<string, unknown> = {}) =>
    createProvider(
      "push",
      channel({
        provider: "webpush",
        vapid_public_key: vapid.publicKey,
        vapid_private_key_env: "VAPID_PRIVATE_KEY",
        subject: "mailto:ops@shop.example",
        allow_http_endpoints: true,
        ...settings,
      }),
      context,
    );

  it("posts the encrypted payload to the subscription endpoint with a VAPID signature", async () => {
    const request = sendRequest({ channel: "push", to: subscription, importance: "high" });
    await expect(push().send(request)).resolves.toEqual({
      ok: true,
      providerMessageId: "https://push.example/m/123",
    });

    const [received] = server.requests;
    expect(received?.url).toBe("/push/sub-1");
    expect(received?.headers).toMatchObject({
      "content-encoding": "aes128gcm",
      "content-type": "application/octet-stream",
      ttl: "86400",
      urgency: "high",
      topic: pushTopic("order-1001"),
    });
    expect(received?.headers["content-length"]).toBe(String(received?.body.length));

    const authorization = received?.headers.authorization ?? "";
    const match = /^vapid t=([^,]+), k=(.+)$/.exec(authorization);
    expect(match?.[2]).toBe(vapid.publicKey);
    const [header, claims, signature] = (match?.[1] ?? "").split(".");
    expect(JSON.parse(Buffer.from(header ?? "", "base64url").toString())).toEqual({
      typ: "JWT",
      alg: "ES256",
    });
    const payload = JSON.parse(Buffer.from(claims ?? "", "base64url").toString());
    expect(payload).toMatchObject({ aud: server.url, sub: "mailto:ops@shop.example" });
    expect(payload.exp).toBeGreaterThan(Date.now() / 1000);
    expect(
      verify(
        "sha256",
        Buffer.from(`${header}.${claims}`),
        { key: vapidPublicKeyObject(), dsaEncoding: "ieee-p1363" },
        Buffer.from(signature ?? "", "base64url"),
      ),
    ).toBe(true);

    const plain = ece.decrypt(received?.body ?? Buffer.alloc(0), {
      version: "aes128gcm",
      privateKey: browserKeys,
      authSecret: authSecret.toString("base64url"),
    });
    expect(JSON.parse(plain.toString("utf8"))).toEqual({
      title: "Your order shipped",
      body: "Order 1001 is on its way.",
      url: "https://shop.example/o/1001",
      thread: "order-1001",
      id: request.messageId,
    });
  });

  it.each([
    ["low", "low"],
    ["normal", "normal"],
    ["high", "high"],
    ["critical", "high"],
  ] as const)("maps importance %s to Urgency %s", async (importance, urgency) => {
    await push().send(sendRequest({ to: subscription, importance }));
    expect(server.requests[0]?.headers.urgency).toBe(urgency);
  });

  it("sends no Topic without a thread and honours ttl_seconds", async () => {
    await push({ ttl_seconds: 60 }).send(
      sendRequest({ to: subscription, content: { title: "t", body: "b", url: null, thread: null } }),
    );
    expect(server.requests[0]?.headers.topic).toBeUndefined();
    expect(server.requests[0]?.headers.ttl).toBe("60");
  });

  it.each([
    ["not JSON", "nope", "webpush invalid subscription"],
    ["no keys", JSON.stringify({ endpoint: "https://push.example/x" }), "webpush invalid subscription"],
    [
      "a bad p256dh key",
      JSON.stringify({ endpoint: "https://push.example/x", keys: { p256dh: "AAAA", auth: "BBBB" } }),
      "webpush invalid subscription keys",
    ],
  ])("fails permanently for a subscription with %s", async (_label, to, error) => {
    await expect(push().send(sendRequest({ to }))).resolves.toEqual({ ok: false, retryable: false, error });
    expect(server.requests).toHaveLength(0);
  });

  it("refuses plain http endpoints unless allowed", async () => {
    await expect(
      push({ allow_http_endpoints: false }).send(sendRequest({ to: subscription })),
    ).resolves.toEqual({
      ok: false,
      retryable: false,
      error: "webpush invalid subscription",
    });
  });

  const cases: [string, Reply, SendResult][] = [
    ["400", { status: 400, body: "" }, { ok: false, retryable: false, error: "webpush 400" }],
    ["403", { status: 403, body: "" }, { ok: false, retryable: false, error: "webpush 403" }],
    [
      "404",
      { status: 404, body: "" },
      { ok: false, retryable: false, error: "webpush 404 subscription gone" },
    ],
    [
      "410",
      { status: 410, body: "" },
      { ok: false, retryable: false, error: "webpush 410 subscription gone" },
    ],
    ["413", { status: 413, body: "" }, { ok: false, retryable: false, error: "webpush 413" }],
    ["408", { status: 408, body: "" }, { ok: false, retryable: true, error: "webpush 408" }],
    [
      "429 with Retry-After",
      { status: 429, headers: { "retry-after": "20" }, body: "" },
      { ok: false, retryable: true, error: "webpush 429", retryAfterMs: 20_000 },
    ],
    ["500", { status: 500, body: "" }, { ok: false, retryable: true, error: "webpush 500" }],
    ["503", { status: 503, body: "" }, { ok: false, retryable: true, error: "webpush 503" }],
  ];
  it.each(cases)("classifies %s", async (_label, reply, expected) => {
    server.replies = [reply];
    await expect(push().send(sendRequest({ to: subscription }))).resolves.toEqual(expected);
  });

  it("retries a timeout", async () => {
    server.replies = [{ status: 201, hang: true }];
    await expect(push({ timeout_ms: 100 }).send(sendRequest({ to: subscription }))).resolves.toEqual({
      ok: false,
      retryable: true,
      error: "webpush timeout after 100 ms",
    });
  });

  it("retries a refused connection", async () => {
    const port = await refusedPort();
    const to = JSON.stringify({ ...JSON.parse(subscription), endpoint: `http://127.0.0.1:${port}/push/x` });
    await expect(push().send(sendRequest({ to }))).resolves.toEqual({
      ok: false,
      retryable: true,
      error: "webpush connection failed (ECONNREFUSED)",
    });
  });

  it("rejects a VAPID key pair that does not parse at start", () => {
    expect(() => push({ vapid_public_key: "short" })).toThrow(
      /channels\.push\.vapid_public_key: invalid VAPID key pair/,
    );
  });
});
