import { createECDH, createPublicKey, randomBytes } from "node:crypto";
import net from "node:net";
import webpush from "web-push";
import { createProvider } from "../create-provider";
import type { SendResult } from "../provider";
import { pushTopic } from "../webpush-provider";
import { decodeJwt } from "./decode-jwt";
import { channel, providerContext, sendRequest, useHttpServer, type Reply } from "./fixtures";
import { itClassifies, itRetriesARefusedConnection, itRetriesATimeout } from "./provider-cases";
// eslint-disable-next-line @typescript-eslint/no-require-imports -- web-push's own decrypter, for the test only
const ece = require("http_ece") as { decrypt(buffer: Buffer, params: Record<string, unknown>): Buffer };

const vapid = webpush.generateVAPIDKeys();
// The push service of these tests runs on loopback, which only `outbound.allow_private_addresses` lets
// a subscription reach; the guard itself is tested at the end.
const context = { ...providerContext({ VAPID_PRIVATE_KEY: vapid.privateKey }), allowPrivateAddresses: true };

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
  const server = useHttpServer([
    { status: 201, headers: { location: "https://push.example/m/123" }, body: "" },
  ]);
  let subscription: string;
  beforeEach(() => {
    subscription = JSON.stringify({
      endpoint: `${server.url}/push/sub-1`,
      keys: {
        p256dh: browserKeys.getPublicKey().toString("base64url"),
        auth: authSecret.toString("base64url"),
      },
    });
  });

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
    const jwt = decodeJwt(match?.[1] ?? "", { key: vapidPublicKeyObject(), dsaEncoding: "ieee-p1363" });
    expect(jwt.header).toEqual({ typ: "JWT", alg: "ES256" });
    expect(jwt.claims).toMatchObject({ aud: server.url, sub: "mailto:ops@shop.example" });
    expect(jwt.claims.exp).toBeGreaterThan(Date.now() / 1000);
    expect(jwt.valid).toBe(true);

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
  itClassifies(
    cases,
    (reply) => (server.replies = [reply]),
    () => push().send(sendRequest({ to: subscription })),
  );

  itRetriesATimeout({
    provider: "webpush",
    timeoutMs: 100,
    hang: () => (server.replies = [{ status: 201, hang: true }]),
    send: (timeoutMs) => push({ timeout_ms: timeoutMs }).send(sendRequest({ to: subscription })),
  });

  itRetriesARefusedConnection("webpush", (origin) => {
    const to = JSON.stringify({ ...JSON.parse(subscription), endpoint: `${origin}/push/x` });
    return push().send(sendRequest({ to }));
  });

  it("rejects a VAPID key pair that does not parse at start", () => {
    expect(() => push({ vapid_public_key: "short" })).toThrow(
      /channels\.push\.vapid_public_key: invalid VAPID key pair/,
    );
  });
});

describe("webpush provider with the outbound guard on (the default)", () => {
  // A TCP listener on loopback that counts connections and resets each: what a port scan through
  // subscriptions would hit (issue: the worker opened TLS connections to https://127.0.0.1:9443).
  let listener: net.Server;
  let port: number;
  let connections = 0;
  beforeAll(async () => {
    listener = net.createServer((socket) => {
      connections += 1;
      socket.resetAndDestroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    port = (listener.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));
  beforeEach(() => (connections = 0));

  const subscriptionTo = (endpoint: string) =>
    JSON.stringify({
      endpoint,
      keys: {
        p256dh: browserKeys.getPublicKey().toString("base64url"),
        auth: authSecret.toString("base64url"),
      },
    });
  const push = (allowPrivateAddresses: boolean) =>
    createProvider(
      "push",
      channel({
        provider: "webpush",
        vapid_public_key: vapid.publicKey,
        vapid_private_key_env: "VAPID_PRIVATE_KEY",
        subject: "mailto:ops@shop.example",
      }),
      { ...providerContext({ VAPID_PRIVATE_KEY: vapid.privateKey }), allowPrivateAddresses },
    );

  it.each([
    ["an IPv4 loopback endpoint", () => `https://127.0.0.1:${port}/x`],
    ["an IPv6 loopback endpoint", () => `https://[::1]:${port}/x`],
    ["an IPv4-mapped endpoint", () => `https://[::ffff:7f00:1]:${port}/x`],
    ["0.0.0.0", () => `https://0.0.0.0:${port}/x`],
    ["a name resolving to loopback", () => `https://localhost:${port}/x`],
  ])("refuses %s permanently without connecting", async (_what, endpoint) => {
    const provider = push(false);
    try {
      await expect(
        provider.send(sendRequest({ channel: "push", to: subscriptionTo(endpoint()) })),
      ).resolves.toEqual({ ok: false, retryable: false, error: "webpush refused: internal address" });
    } finally {
      await provider.close?.();
    }
    expect(connections).toBe(0);
  });

  it("stores only a category when the far side resets the connection (no ECONNRESET, address or port)", async () => {
    const provider = push(true);
    try {
      await expect(
        provider.send(sendRequest({ channel: "push", to: subscriptionTo(`https://127.0.0.1:${port}/x`) })),
      ).resolves.toEqual({ ok: false, retryable: true, error: "webpush connection failed" });
    } finally {
      await provider.close?.();
    }
    expect(connections).toBe(1);
  });
});
