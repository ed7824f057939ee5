import {
  fillLinkPlaceholders,
  fillLinkPlaceholdersIn,
  type Importance,
  type LinkPlaceholderName,
} from "@svc/core";
import type { Provider, SendContent, SendRequest, SendResult } from "@svc/providers";
import type { MessageRow } from "@svc/store";
import { contentForChannel, isEmailChannel, type MessageContent } from "../compose/message-content";
import type { DeliveryDeps, DeliveryLinkValues } from "../shared/delivery-types";
import type { RecheckedRecipient } from "./recheck-before-sending";

// One channel try: the message goes to every enabled address of the channel at once (two phones
// both ring; docs/delivery.md, "Channels, addresses, attempts"); the try succeeds when any address
// accepts.

export interface AttemptRecord {
  channel: string;
  provider: string;
  address: string;
  ok: boolean;
  retryable: boolean;
  error: string | null;
  retryAfterMs?: number;
}

export interface ChannelTryInput {
  message: MessageRow;
  channel: string;
  provider: Provider;
  addresses: string[];
  recipient: RecheckedRecipient;
  allowUnsubscribe: boolean;
  links: DeliveryLinkValues;
}

export async function sendToChannel(
  deps: Pick<DeliveryDeps, "config">,
  input: ChannelTryInput,
): Promise<AttemptRecord[]> {
  const content = providerContent(deps, input);
  // `data` holds live links too (a reviewer's notice carries its `review_url` there).
  const data = fillLinkPlaceholdersIn(
    (input.message.data ?? {}) as Record<string, unknown>,
    linkUrlsFor(input.links, input.allowUnsubscribe),
  );
  return Promise.all(
    input.addresses.map(async (to) => {
      const request: SendRequest = {
        messageId: input.message.id,
        channel: input.channel,
        to,
        recipient: {
          external_id: input.recipient.external_id,
          locale: input.recipient.locale,
          timezone: input.recipient.timezone,
        },
        category: input.message.category,
        importance: input.message.importance as Importance,
        content,
        data,
        trackingToken: input.links.tracking_token,
        unsubscribeUrl: input.allowUnsubscribe ? input.links.one_click_url : null,
        preferencesUrl: input.links.preferences_url,
        allowUnsubscribe: input.allowUnsubscribe,
      };
      return attemptOf(input.channel, input.provider, to, await safeSend(input.provider, request));
    }),
  );
}

// Stored content and data keep `[[svc:...]]` placeholders; only this copy, handed to the provider,
// holds live links (docs/delivery.md, "Channels, addresses, attempts").
function providerContent(deps: Pick<DeliveryDeps, "config">, input: ChannelTryInput): SendContent {
  const stored = (input.message.content ?? {
    title: "",
    body: "",
    url: null,
    thread: null,
  }) as unknown as MessageContent;
  const rendered = contentForChannel(stored, input.channel);
  const urls = linkUrlsFor(input.links, input.allowUnsubscribe);
  // E-mail bodies are rendered with HTML autoescape (docs/templates.md): that is the HTML part.
  const html = isEmailChannel(deps.config, input.channel);
  return {
    title: fillLinkPlaceholders(rendered.title, urls),
    body: fillLinkPlaceholders(rendered.body, urls),
    url: rendered.url === null ? null : fillLinkPlaceholders(rendered.url, urls) || null,
    thread: rendered.thread,
    ...(html ? { html: fillLinkPlaceholders(rendered.body, urls, { html: true }) } : {}),
  };
}

/** The URLs placeholders are filled with: no unsubscribe link where the category forbids unsubscribing. */
export function linkUrlsFor(
  links: DeliveryLinkValues,
  allowUnsubscribe: boolean,
): Partial<Record<LinkPlaceholderName, string | null>> {
  return {
    preferences_url: links.preferences_url,
    unsubscribe_url: allowUnsubscribe ? links.unsubscribe_url : null,
    review_url: links.review_url,
  };
}

/** The longest provider error kept on an attempt; the rest is cut (a provider's answer can be long). */
export const ATTEMPT_ERROR_MAX = 1000;

/**
 * A provider's error text as an attempt can store it. Providers quote what the far side answered
 * (error codes, reasons), and the far side may send U+0000, which Postgres text cannot hold: the
 * attempt's write would fail and the delivery with it, again on every retry. NUL becomes U+FFFD.
 */
export function storableError(text: string): string {
  const clean = text.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text;
  return clean.length <= ATTEMPT_ERROR_MAX ? clean : `${clean.slice(0, ATTEMPT_ERROR_MAX - 1)}…`;
}

// A provider that throws instead of resolving broke its contract; the outcome is unknown, so retry.
// Only the error's class is stored: its text may quote the far side's network detail
// (docs/providers.md "How a send ends").
async function safeSend(provider: Provider, request: SendRequest): Promise<SendResult> {
  try {
    return await provider.send(request);
  } catch (error) {
    const kind = error instanceof Error ? error.name : typeof error;
    return { ok: false, retryable: true, error: `${provider.name} failed unexpectedly (${kind})` };
  }
}

function attemptOf(channel: string, provider: Provider, address: string, result: SendResult): AttemptRecord {
  const name = result.provider ?? provider.name;
  if (result.ok) return { channel, provider: name, address, ok: true, retryable: false, error: null };
  const record: AttemptRecord = {
    channel,
    provider: name,
    address,
    ok: false,
    retryable: result.retryable,
    error: storableError(result.error),
  };
  if (result.retryAfterMs !== undefined) record.retryAfterMs = result.retryAfterMs;
  return record;
}
