// Browser push (RFC 8030/8291/8292): web-push encrypts the payload and signs the VAPID header; the
// request itself goes through the shared HTTP path so timeouts and classification match the rest.
// The endpoint is recipient data, so it goes through the outbound guard: internal addresses are
// refused at connect time (docs/providers.md "Outbound requests").
import { createHash } from "node:crypto";
import webpush from "web-push";
import type { Importance } from "@svc/core";
import { z } from "zod";
import { providerPost, statusFailure } from "./http";
import { createGuardedDispatcher } from "./outbound";
import { accepted, permanent, type Provider, type SendRequest } from "./provider";
import { parseSettings, requiredSecret, settingError, timeoutMs, type ProviderSetup } from "./settings";

export const webpushSettings = z.object({
  vapid_public_key: z.string().min(1),
  vapid_private_key_env: z.string(),
  subject: z.string().regex(/^(mailto:|https:\/\/)/, { error: "expected a mailto: or https:// address" }),
  ttl_seconds: z.number().int().min(0).max(2_419_200).default(86_400),
  /** Real push services are https; plain http is for local testing only. */
  allow_http_endpoints: z.boolean().default(false),
  timeout_ms: timeoutMs,
});

const URGENCY: Record<Importance, webpush.Urgency> = {
  low: "low",
  normal: "normal",
  high: "high",
  critical: "high",
};

/** A Topic replaces a still-undelivered push of the same thread (at most 32 base64url characters). */
export function pushTopic(thread: string): string {
  return createHash("sha256").update(thread).digest("base64url").slice(0, 32);
}

function webpushPayload(request: SendRequest): string {
  const { title, body, url, thread } = request.content;
  return JSON.stringify({ title, body, url, thread, id: request.messageId });
}

export function createWebpushProvider(setup: ProviderSetup): Provider {
  const settings = parseSettings(webpushSettings, setup);
  const vapidDetails = {
    subject: settings.subject,
    publicKey: settings.vapid_public_key,
    privateKey: requiredSecret(setup, "vapid_private_key"),
  };
  checkVapidKeys(setup.channelName, vapidDetails);
  const { now } = setup.context;
  const post = providerPost("webpush", settings.timeout_ms);
  const dispatcher = createGuardedDispatcher({ allowPrivate: setup.context.allowPrivateAddresses === true });
  return {
    name: "webpush",
    close: () => dispatcher.close(),
    async send(request) {
      const subscription = parseSubscription(request.to, settings.allow_http_endpoints);
      if (!subscription) return permanent("webpush invalid subscription");
      let details: webpush.RequestDetails;
      try {
        details = webpush.generateRequestDetails(subscription, webpushPayload(request), {
          vapidDetails,
          TTL: settings.ttl_seconds,
          urgency: URGENCY[request.importance],
          topic: request.content.thread ? pushTopic(request.content.thread) : undefined,
          contentEncoding: "aes128gcm",
        });
      } catch {
        // The subscription's keys are not usable P-256 / auth values.
        return permanent("webpush invalid subscription keys");
      }
      const headers = Object.fromEntries(
        Object.entries(details.headers).map(([name, value]) => [name, String(value)]),
      );
      const body = details.body ?? new Uint8Array();
      return post({ url: details.endpoint, headers, body, dispatcher }, (response) => {
        if (response.status >= 200 && response.status < 300) {
          return accepted(response.headers.get("location") ?? undefined);
        }
        const gone = response.status === 404 || response.status === 410 ? "subscription gone" : undefined;
        return statusFailure("webpush", response.status, response.headers, now(), gone);
      });
    },
  };
}

function parseSubscription(value: string, allowHttp: boolean): webpush.PushSubscription | undefined {
  try {
    const parsed = JSON.parse(value) as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } };
    const { endpoint, keys } = parsed;
    if (typeof endpoint !== "string" || !URL.canParse(endpoint)) return undefined;
    const protocol = new URL(endpoint).protocol;
    if (protocol !== "https:" && !(allowHttp && protocol === "http:")) return undefined;
    if (typeof keys?.p256dh !== "string" || typeof keys.auth !== "string") return undefined;
    return { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } };
  } catch {
    return undefined;
  }
}

function checkVapidKeys(
  channelName: string,
  details: { subject: string; publicKey: string; privateKey: string },
) {
  try {
    webpush.getVapidHeaders(
      "https://push.example",
      details.subject,
      details.publicKey,
      details.privateKey,
      "aes128gcm",
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : "unknown error";
    throw settingError({ channelName }, "vapid_public_key", `invalid VAPID key pair (${reason})`);
  }
}
