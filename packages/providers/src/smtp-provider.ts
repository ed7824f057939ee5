// E-mail over SMTP with nodemailer: text and HTML parts, stable Message-ID, thread References and
// one-click unsubscribe headers. SMTP replies classify the outcome: 4yz retry, 5yz are final.
import { isEmailMailbox } from "@svc/core";
import nodemailer from "nodemailer";
import { z } from "zod";
import { bodyWithLink, textToHtml } from "./content-text";
import { emailMessageId, threadMessageId, unsubscribeHeaders } from "./email-headers";
import { accepted, permanent, retryable, type Provider, type SendRequest, type SendResult } from "./provider";
import { optionalSecret, parseSettings, timeoutMs, type ProviderSetup } from "./settings";

export const smtpSettings = z.object({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535).optional(),
  /** Implicit TLS (port 465); otherwise STARTTLS when the server offers it. */
  secure: z.boolean().default(false),
  require_tls: z.boolean().default(false),
  from: z.string().min(3),
  reply_to: z.string().min(3).optional(),
  username: z.string().min(1).optional(),
  password_env: z.string().optional(),
  unsubscribe_mailto: z
    .string()
    .regex(/^[^\s@<>]+@[^\s@<>]+$/, { error: "expected an e-mail address" })
    .optional(),
  message_id_domain: z
    .string()
    .regex(/^[A-Za-z0-9.-]+$/, { error: "expected a domain name" })
    .default("svc"),
  timeout_ms: timeoutMs,
});

// Errors without an SMTP reply that say the network, not the message, was the problem.
const TRANSIENT_CODES = new Set(["ECONNECTION", "ETIMEDOUT", "ESOCKET", "EDNS", "ETLS"]);

export function createSmtpProvider(setup: ProviderSetup): Provider {
  const settings = parseSettings(smtpSettings, setup);
  const password = optionalSecret(setup, "password");
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port ?? (settings.secure ? 465 : 587),
    secure: settings.secure,
    requireTLS: settings.require_tls,
    auth: settings.username ? { user: settings.username, pass: password ?? "" } : undefined,
    connectionTimeout: settings.timeout_ms,
    greetingTimeout: settings.timeout_ms,
    socketTimeout: settings.timeout_ms,
  });
  return {
    name: "smtp",
    async send(request) {
      // Defence in depth: whatever was stored, one address is one mailbox (docs/providers.md "smtp").
      if (!isEmailMailbox(request.to)) return permanent("smtp invalid address");
      try {
        const info = await transport.sendMail(mailFor(request, settings));
        return accepted(typeof info.response === "string" ? info.response.slice(0, 200) : undefined);
      } catch (error) {
        return smtpFailure(error);
      }
    },
    close: async () => transport.close(),
  };
}

function mailFor(request: SendRequest, settings: z.output<typeof smtpSettings>) {
  const { title, body, url, thread, html } = request.content;
  const threadId = thread ? threadMessageId(thread, settings.message_id_domain) : undefined;
  // An address object and an explicit envelope: nodemailer parses neither, so the value can never
  // be read as a list, a name or a second RCPT TO.
  const recipient = { name: "", address: request.to };
  return {
    from: settings.from,
    to: recipient,
    envelope: { from: settings.from, to: [recipient] },
    replyTo: settings.reply_to,
    subject: title,
    text: bodyWithLink(body, url),
    html: html ?? textToHtml(title, body, url),
    messageId: emailMessageId(request.messageId, settings.message_id_domain),
    references: threadId,
    inReplyTo: threadId,
    headers: unsubscribeHeaders({
      allowUnsubscribe: request.allowUnsubscribe,
      unsubscribeUrl: request.unsubscribeUrl,
      mailto: settings.unsubscribe_mailto,
      messageId: request.messageId,
    }),
  };
}

function smtpFailure(error: unknown): SendResult {
  const { responseCode, code, command, response } = error as {
    responseCode?: unknown;
    code?: unknown;
    command?: unknown;
    response?: unknown;
  };
  if (typeof responseCode === "number") {
    const detail = [command, response].filter((part) => typeof part === "string").join(": ");
    const text = `smtp ${responseCode}${detail ? ` ${detail}` : ""}`;
    // RFC 5321: 4yz is transient; 503 (bad sequence) only says this session went wrong.
    return responseCode < 500 || responseCode === 503 ? retryable(text) : permanent(text);
  }
  const name = typeof code === "string" ? code : "error";
  return TRANSIENT_CODES.has(name) ? retryable(`smtp ${name}`) : permanent(`smtp ${name}`);
}
