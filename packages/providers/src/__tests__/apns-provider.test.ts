import { generateKeyPairSync } from "node:crypto";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { apnsId } from "../apns-provider";
import { createProvider } from "../create-provider";
import type { Provider, SendResult } from "../provider";
import { decodeJwt } from "./decode-jwt";
import { channel, NOW, sendRequest } from "./fixtures";
import { itClassifies, itRetriesARefusedConnection } from "./provider-cases";

const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const P8 = privateKey.export({ type: "pkcs8", format: "pem" }).toString();

interface Received {
  headers: http2.IncomingHttpHeaders;
  body: string;
}
interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: object;
  hang?: boolean;
}

/** A cleartext HTTP/2 server standing in for api.push.apple.com. */
async function startApnsServer() {
  const received: Received[] = [];
  const state = { answer: { status: 200 } as Answer, received, origin: "", sessions: 0 };
  const sessions = new Set<http2.ServerHttp2Session>();
  const server = http2.createServer();
  server.on("session", (session) => {
    state.sessions += 1;
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  server.on("stream", (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      received.push({ headers, body: Buffer.concat(chunks).toString() });
      const { answer } = state;
      if (answer.hang) return;
      const apnsIdHeader = headers["apns-id"];
      stream.respond({
        ":status": answer.status,
        ...(typeof apnsIdHeader === "string" ? { "apns-id": apnsIdHeader } : {}),
        ...answer.headers,
      });
      stream.end(answer.body ? JSON.stringify(answer.body) : undefined);
    });
    stream.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** Ends every open connection (as APNs does now and then with GOAWAY). */
  const dropConnections = () => {
    for (const session of sessions) session.destroy();
  };
  const close = () =>
    new Promise<void>((resolve) => {
      dropConnections();
      server.close(() => resolve());
    });
  return { state, close, dropConnections };
}

/** The provider token, checked against the key pair whose private half the channel holds. */
const decodeToken = (jwt: string) => decodeJwt(jwt, { key: publicKey, dsaEncoding: "ieee-p1363" });

describe("apns provider", () => {
  let apns: Awaited<ReturnType<typeof startApnsServer>>;
  let provider: Provider;
  let clock: Date;
  const make = (settings: Record<string, unknown> = {}) =>
    createProvider(
      "ios",
      channel({
        provider: "apns",
        key_id: "ABC123DEFG",
        team_id: "TEAM123456",
        private_key_env: "APNS_KEY",
        bundle_id: "example.shop.app",
        base_url: apns.state.origin,
        ...settings,
      }),
      { env: { APNS_KEY: P8 }, now: () => clock },
    );

  beforeEach(async () => {
    clock = NOW;
    apns = await startApnsServer();
    provider = make();
  });
  afterEach(async () => {
    await provider.close?.();
    await apns.close();
  });

  const request = sendRequest({ channel: "ios", to: "a1b2c3d4e5f6", importance: "high" });

  it("posts the alert to /3/device/<token> with the documented headers and a valid ES256 token", async () => {
    await expect(provider.send(request)).resolves.toEqual({
      ok: true,
      providerMessageId: apnsId(request.messageId),
    });
    const [received] = apns.state.received;
    expect(received?.headers).toMatchObject({
      ":method": "POST",
      ":path": "/3/device/a1b2c3d4e5f6",
      "apns-topic": "example.shop.app",
      "apns-push-type": "alert",
      "apns-priority": "10",
      "apns-id": apnsId(request.messageId),
      "content-type": "application/json",
    });
    expect(received?.headers["apns-collapse-id"]).toBeUndefined();
    const authorization = String(received?.headers.authorization);
    expect(authorization).toMatch(/^bearer /);
    const jwt = decodeToken(authorization.slice("bearer ".length));
    expect(jwt).toEqual({
      header: { alg: "ES256", typ: "JWT", kid: "ABC123DEFG" },
      claims: { iss: "TEAM123456", iat: NOW.getTime() / 1000 },
      valid: true,
    });
    expect(JSON.parse(received?.body ?? "")).toEqual({
      aps: {
        alert: { title: "Your order shipped", body: "Order 1001 is on its way." },
        "thread-id": "order-1001",
      },
      message_id: request.messageId,
      url: "https://shop.example/o/1001",
    });
  });

  it("sends low-priority pushes with priority 5, a configured sound and no thread", async () => {
    await provider.close?.();
    provider = make({ sound: "default" });
    await provider.send(
      sendRequest({
        to: "tok",
        importance: "normal",
        content: { title: "t", body: "b", url: null, thread: null },
      }),
    );
    const [received] = apns.state.received;
    expect(received?.headers["apns-priority"]).toBe("5");
    expect(JSON.parse(received?.body ?? "")).toEqual({
      aps: { alert: { title: "t", body: "b" }, sound: "default" },
      message_id: "msg_01JNE7Z5Q8R2W3X4Y5Z6A7B8C9",
    });
  });

  it("marks critical pushes time-sensitive", async () => {
    await provider.send(sendRequest({ to: "tok", importance: "critical" }));
    expect(JSON.parse(apns.state.received[0]?.body ?? "").aps["interruption-level"]).toBe("time-sensitive");
  });

  it("keeps one connection and one token for 50 minutes, then signs a new token", async () => {
    await provider.send(request);
    clock = new Date(NOW.getTime() + 49 * 60_000);
    await provider.send(request);
    clock = new Date(NOW.getTime() + 50 * 60_000);
    await provider.send(request);
    const tokens = apns.state.received.map(
      (received) => decodeToken(String(received.headers.authorization).slice(7)).claims.iat,
    );
    expect(tokens).toEqual([NOW.getTime() / 1000, NOW.getTime() / 1000, NOW.getTime() / 1000 + 3000]);
    expect(apns.state.sessions).toBe(1);
  });

  it("signs a new token after ExpiredProviderToken", async () => {
    apns.state.answer = { status: 403, body: { reason: "ExpiredProviderToken" } };
    await expect(provider.send(request)).resolves.toEqual({
      ok: false,
      retryable: true,
      error: "apns 403 ExpiredProviderToken",
    });
    apns.state.answer = { status: 200 };
    clock = new Date(NOW.getTime() + 60_000);
    await provider.send(request);
    const iats = apns.state.received.map(
      (received) => decodeToken(String(received.headers.authorization).slice(7)).claims.iat,
    );
    expect(iats).toEqual([NOW.getTime() / 1000, NOW.getTime() / 1000 + 60]);
  });

  const cases: [string, Answer, SendResult][] = [
    [
      "400 BadDeviceToken",
      { status: 400, body: { reason: "BadDeviceToken" } },
      { ok: false, retryable: false, error: "apns 400 BadDeviceToken" },
    ],
    [
      "403 InvalidProviderToken",
      { status: 403, body: { reason: "InvalidProviderToken" } },
      { ok: false, retryable: false, error: "apns 403 InvalidProviderToken" },
    ],
    [
      "404 BadPath",
      { status: 404, body: { reason: "BadPath" } },
      { ok: false, retryable: false, error: "apns 404 BadPath" },
    ],
    [
      "410 Unregistered",
      { status: 410, body: { reason: "Unregistered", timestamp: 1740830400000 } },
      { ok: false, retryable: false, error: "apns 410 Unregistered" },
    ],
    [
      "413 PayloadTooLarge",
      { status: 413, body: { reason: "PayloadTooLarge" } },
      { ok: false, retryable: false, error: "apns 413 PayloadTooLarge" },
    ],
    [
      "429 TooManyRequests with Retry-After",
      { status: 429, headers: { "retry-after": "15" }, body: { reason: "TooManyRequests" } },
      { ok: false, retryable: true, error: "apns 429 TooManyRequests", retryAfterMs: 15_000 },
    ],
    [
      "500 InternalServerError",
      { status: 500, body: { reason: "InternalServerError" } },
      { ok: false, retryable: true, error: "apns 500 InternalServerError" },
    ],
    [
      "503 ServiceUnavailable",
      { status: 503, body: { reason: "ServiceUnavailable" } },
      { ok: false, retryable: true, error: "apns 503 ServiceUnavailable" },
    ],
  ];
  itClassifies(
    cases,
    (answer) => (apns.state.answer = answer),
    () => provider.send(request),
  );

  it("retries a timeout, then works again on the same connection", async () => {
    await provider.close?.();
    provider = make({ timeout_ms: 150 });
    apns.state.answer = { status: 200, hang: true };
    await expect(provider.send(request)).resolves.toEqual({
      ok: false,
      retryable: true,
      error: "apns timeout after 150 ms",
    });
    apns.state.answer = { status: 200 };
    await expect(provider.send(request)).resolves.toMatchObject({ ok: true });
  });

  it("opens a new connection after the server dropped the old one", async () => {
    await provider.send(request);
    apns.dropConnections();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(provider.send(request)).resolves.toMatchObject({ ok: true });
    expect(apns.state.sessions).toBe(2);
  });

  it("retries while the server is down", async () => {
    await provider.send(request);
    await apns.close();
    // Right away the old connection may still be closing: a stream error, retryable all the same.
    await expect(provider.send(request)).resolves.toMatchObject({ ok: false, retryable: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(provider.send(request)).resolves.toEqual({
      ok: false,
      retryable: true,
      error: "apns connection failed",
    });
  });

  itRetriesARefusedConnection("apns", async (origin) => {
    await provider.close?.();
    provider = make({ base_url: origin });
    return provider.send(request);
  });

  it("rejects a key that is not an EC private key at start", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    expect(() =>
      createProvider(
        "ios",
        channel({
          provider: "apns",
          key_id: "ABC123DEFG",
          team_id: "TEAM123456",
          private_key_env: "K",
          bundle_id: "b",
        }),
        {
          env: { K: rsa },
          now: () => NOW,
        },
      ),
    ).toThrow("channels.ios.private_key_env: the variable does not hold a .p8 (EC) private key");
  });
});

describe("apnsId", () => {
  it("is a stable RFC 4122 UUID per message id", () => {
    expect(apnsId("msg_1")).toBe(apnsId("msg_1"));
    expect(apnsId("msg_1")).not.toBe(apnsId("msg_2"));
    expect(apnsId("msg_1")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
