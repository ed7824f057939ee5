// One interface for every channel connector (docs/providers.md). A provider never
// throws for a delivery outcome: it resolves with ok, a retryable failure or a permanent one.
import type { Env } from "@svc/config";
import type { Importance } from "@svc/core";

export interface SendContent {
  title: string;
  body: string;
  url: string | null;
  thread: string | null;
  /** E-mail only: a rendered HTML body; without it the text body is escaped into HTML. */
  html?: string | null;
}

export interface SendRequest {
  messageId: string;
  channel: string;
  /** The address value on this channel (e-mail address, phone number, device token, subscription JSON, ...). */
  to: string;
  recipient: { external_id: string; locale: string | null; timezone: string | null };
  category: string;
  importance: Importance;
  content: SendContent;
  data: Record<string, unknown>;
  trackingToken?: string | null;
  unsubscribeUrl?: string | null;
  preferencesUrl?: string | null;
  /** The category allows unsubscribing (so one-click unsubscribe headers may be offered). */
  allowUnsubscribe: boolean;
}

export type SendResult =
  | { ok: true; providerMessageId?: string; provider?: string }
  | {
      ok: false;
      retryable: boolean;
      /** Short, safe to store in `attempts[].error` and `status_reason`; never holds credentials. */
      error: string;
      retryAfterMs?: number;
      provider?: string;
    };

export type SendFailure = Extract<SendResult, { ok: false }>;

export interface Provider {
  name: string;
  send(request: SendRequest): Promise<SendResult>;
  /** Releases connections (SMTP, HTTP/2) at shutdown. */
  close?(): Promise<void>;
}

/**
 * Where the `inbox` provider keeps a person's items: svc's own database, through the engine's inbox
 * delivery (docs/inbox.md "The channel"), which the worker hands in.
 */
export interface InboxStore {
  deliver(request: SendRequest): Promise<SendResult>;
}

/** What a provider needs from its surroundings; the worker passes process.env and the real clock. */
export interface ProviderContext {
  env: Env;
  now: () => Date;
  /** The console provider's output (default process.stdout). */
  stream?: { write(chunk: string): unknown };
  /**
   * `outbound.allow_private_addresses`: addresses taken from data (web-push endpoints) may be
   * internal. Default false (docs/providers.md "Outbound requests").
   */
  allowPrivateAddresses?: boolean;
  /** Required by channels with `provider: inbox`. */
  inbox?: InboxStore;
}

const MAX_ERROR_LENGTH = 300;

export function accepted(providerMessageId?: string): SendResult {
  return providerMessageId === undefined ? { ok: true } : { ok: true, providerMessageId };
}

export function retryable(error: string, retryAfterMs?: number): SendFailure {
  const failure: SendFailure = { ok: false, retryable: true, error: shorten(error) };
  if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs;
  return failure;
}

export function permanent(error: string): SendFailure {
  return { ok: false, retryable: false, error: shorten(error) };
}

function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > MAX_ERROR_LENGTH ? `${oneLine.slice(0, MAX_ERROR_LENGTH - 1)}…` : oneLine;
}
