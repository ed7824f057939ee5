import { createHash } from "node:crypto";
import net from "node:net";
import type { AddressInfo } from "node:net";
import type { Provider, SendResult } from "../provider";
import { createProvider } from "../create-provider";
import { channel, NOW, providerContext, refusedPort, sendRequest } from "./fixtures";
import { headersOf, partsOf, startSmtpServer, type TestSmtpServer } from "./smtp-server";

const context = providerContext({ SMTP_PASSWORD: "smtp-pass" });

describe("smtp provider", () => {
  let server: TestSmtpServer;
  let provider: Provider;
  beforeEach(async () => {
    server = await startSmtpServer();
    provider = createProvider(
      "email",
      channel({
        provider: "smtp",
        host: "127.0.0.1",
        port: server.port,
        from: "Shop <noreply@shop.example>",
        username: "svc",
        password_env: "SMTP_PASSWORD",
        unsubscribe_mailto: "unsubscribe@shop.example",
        message_id_domain: "shop.example",
      }),
      context,
    );
  });
  afterEach(async () => {
    await provider.close?.();
    await server.close();
  });

  const request = sendRequest({
    channel: "email",
    to: "ada@example.com",
    unsubscribeUrl: "https://svc.example/preferences/unsub-token/unsubscribe",
    allowUnsubscribe: true,
  });

  it("sends a multipart text + HTML mail with stable ids, thread and unsubscribe headers", async () => {
    const result = await provider.send(request);
    expect(result).toMatchObject({ ok: true });
    expect(server.mails).toHaveLength(1);
    const mail = server.mails[0]!;
    expect(mail).toMatchObject({ from: "noreply@shop.example", to: ["ada@example.com"], user: "svc" });

    const headers = headersOf(mail.raw);
    const threadId = `<thread-${createHash("sha256").update("order-1001").digest("hex").slice(0, 32)}@shop.example>`;
    expect(headers.get("message-id")).toBe(`<${request.messageId}@shop.example>`);
    expect(headers.get("references")).toBe(threadId);
    expect(headers.get("in-reply-to")).toBe(threadId);
    expect(headers.get("subject")).toBe("Your order shipped");
    expect(headers.get("from")).toBe("Shop <noreply@shop.example>");
    expect(headers.get("to")).toBe("ada@example.com");
    expect(headers.get("list-unsubscribe")).toBe(
      `<https://svc.example/preferences/unsub-token/unsubscribe>, <mailto:unsubscribe@shop.example?subject=unsubscribe%20${request.messageId}>`,
    );
    expect(headers.get("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(headers.get("content-type")).toMatch(/^multipart\/alternative; boundary=/);

    const parts = partsOf(mail.raw);
    expect(parts.map((part) => part.headers.get("content-type"))).toEqual([
      "text/plain; charset=utf-8",
      "text/html; charset=utf-8",
    ]);
    expect(parts[0]?.body).toBe("Order 1001 is on its way.\n\nhttps://shop.example/o/1001");
    expect(parts[1]?.body).toBe(
      [
        "<!doctype html>",
        '<html><head><meta charset="utf-8"><title>Your order shipped</title></head>',
        '<body><p>Order 1001 is on its way.</p><p><a href="https://shop.example/o/1001">https://shop.example/o/1001</a></p></body></html>',
      ].join("\n"),
    );
  });

  // The finding: `me@example.com, victim@example.org` went to both mailboxes, and a value
  // with CR/LF added a second RCPT TO. Whatever is stored, the provider sends to one mailbox.
  it.each([
    ["a list", "me@example.com, victim@example.org"],
    ["a list without a space", "me@example.com,victim@example.org"],
    ["a display name", "Me <me@example.com>"],
    ["an RCPT TO injection", "c@example.com>\r\nRCPT TO:<evil2@example.com"],
    ["a trailing line break", "me@example.com\n"],
  ])("refuses %s permanently and sends nothing", async (_what, to) => {
    await expect(provider.send({ ...request, to })).resolves.toEqual({
      ok: false,
      retryable: false,
      error: "smtp invalid address",
    });
    expect(server.mails).toHaveLength(0);
  });

  it("sends a quoted local part holding a comma to that one mailbox", async () => {
    await expect(provider.send({ ...request, to: '"ada,lovelace"@example.com' })).resolves.toMatchObject({
      ok: true,
    });
    expect(server.mails.map((mail) => mail.to)).toEqual([['"ada,lovelace"@example.com']]);
  });

  it("uses the same Message-ID when a message is sent again", async () => {
    await provider.send(request);
    await provider.send(request);
    expect(server.mails.map((mail) => headersOf(mail.raw).get("message-id"))).toEqual([
      `<${request.messageId}@shop.example>`,
      `<${request.messageId}@shop.example>`,
    ]);
  });

  it("sends a given HTML body as is", async () => {
    await provider.send({ ...request, content: { ...request.content, html: "<p>Rich <b>text</b></p>" } });
    expect(partsOf(server.mails[0]!.raw)[1]?.body).toBe("<p>Rich <b>text</b></p>");
  });

  it.each([
    ["the category forbids unsubscribing", { allowUnsubscribe: false }],
    ["no unsubscribe URL was given", { unsubscribeUrl: null }],
  ])("leaves out unsubscribe headers when %s", async (_label, overrides) => {
    await provider.send({ ...request, ...overrides });
    const headers = headersOf(server.mails[0]!.raw);
    expect(headers.has("list-unsubscribe")).toBe(false);
    expect(headers.has("list-unsubscribe-post")).toBe(false);
  });

  it("leaves out thread headers without a thread", async () => {
    await provider.send({ ...request, content: { ...request.content, thread: null } });
    const headers = headersOf(server.mails[0]!.raw);
    expect(headers.has("references")).toBe(false);
    expect(headers.has("in-reply-to")).toBe(false);
  });

  const cases: [number, SendResult][] = [
    [450, { ok: false, retryable: true, error: "smtp 450 RCPT TO: 450 Try again later" }],
    [451, { ok: false, retryable: true, error: "smtp 451 RCPT TO: 451 Try again later" }],
    [550, { ok: false, retryable: false, error: "smtp 550 RCPT TO: 550 Mailbox unavailable" }],
    [553, { ok: false, retryable: false, error: "smtp 553 RCPT TO: 553 Mailbox unavailable" }],
  ];
  it.each(cases)("classifies a %d reply", async (code, expected) => {
    server.rcptReplies.set("ada@example.com", code);
    await expect(provider.send(request)).resolves.toEqual(expected);
    expect(server.mails).toHaveLength(0);
  });

  it("treats refused credentials as permanent", async () => {
    const wrong = createProvider(
      "email",
      channel({
        provider: "smtp",
        host: "127.0.0.1",
        port: server.port,
        from: "a@b.example",
        username: "svc",
        password_env: "SMTP_PASSWORD",
      }),
      { env: { SMTP_PASSWORD: "wrong" }, now: () => NOW },
    );
    await expect(wrong.send(request)).resolves.toEqual({
      ok: false,
      retryable: false,
      error: "smtp 535 AUTH PLAIN: 535 Invalid credentials",
    });
  });
});

describe("smtp provider without a server", () => {
  it("retries a refused connection", async () => {
    const port = await refusedPort();
    const provider = createProvider(
      "email",
      channel({ provider: "smtp", host: "127.0.0.1", port, from: "a@b.example" }),
      context,
    );
    await expect(provider.send(sendRequest({ to: "ada@example.com" }))).resolves.toEqual({
      ok: false,
      retryable: true,
      error: "smtp ESOCKET",
    });
  });

  it("retries a server that never greets, after timeout_ms", async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const provider = createProvider(
        "email",
        channel({ provider: "smtp", host: "127.0.0.1", port, from: "a@b.example", timeout_ms: 200 }),
        context,
      );
      await expect(provider.send(sendRequest({ to: "ada@example.com" }))).resolves.toEqual({
        ok: false,
        retryable: true,
        error: "smtp ETIMEDOUT",
      });
    } finally {
      silent.close();
    }
  });
});
