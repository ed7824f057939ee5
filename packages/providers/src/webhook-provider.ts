// Posts the message as signed JSON to the backend's URL (DECISIONS "Channels and providers").
import { z } from "zod";
import { providerPost, statusFailure } from "./http";
import { accepted, type Provider, type SendRequest } from "./provider";
import { SIGNATURE_HEADER, signPayload } from "./webhook-signature";
import { httpUrl, parseSettings, requiredSecret, timeoutMs, type ProviderSetup } from "./settings";

export const webhookSettings = z.object({
  url: httpUrl,
  secret_env: z.string(),
  timeout_ms: timeoutMs,
});

export function webhookBody(request: SendRequest): string {
  return JSON.stringify({
    id: request.messageId,
    channel: request.channel,
    to: request.to,
    recipient: request.recipient,
    category: request.category,
    importance: request.importance,
    content: request.content,
    data: request.data,
    tracking_token: request.trackingToken ?? null,
  });
}

export function createWebhookProvider(setup: ProviderSetup): Provider {
  const settings = parseSettings(webhookSettings, setup);
  const secret = requiredSecret(setup, "secret");
  const { now, fetch: fetchFn = fetch } = setup.context;
  const post = providerPost("webhook", fetchFn, settings.timeout_ms);
  return {
    name: "webhook",
    send(request) {
      const body = webhookBody(request);
      const timestamp = Math.floor(now().getTime() / 1000);
      const headers = {
        "Content-Type": "application/json",
        "Idempotency-Key": request.messageId,
        [SIGNATURE_HEADER]: signPayload(secret, body, timestamp),
      };
      return post({ url: settings.url, headers, body }, (response) => {
        if (response.status >= 200 && response.status < 300) return accepted();
        return statusFailure("webhook", response.status, response.headers, now());
      });
    },
  };
}
