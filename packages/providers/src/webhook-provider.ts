// Posts the message as signed JSON to the backend's URL (docs/providers.md, "webhook").
import { z } from "zod";
import type { Provider, SendRequest } from "./provider";
import { postSignedJson } from "./signed-json-post";
import { httpUrl, parseSettings, requiredSecret, timeoutMs, type ProviderSetup } from "./settings";

export const webhookSettings = z.object({
  url: httpUrl,
  secret_env: z.string(),
  timeout_ms: timeoutMs,
});

function webhookBody(request: SendRequest): string {
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
  const { now } = setup.context;
  return {
    name: "webhook",
    send: async (request) => {
      const result = await postSignedJson({
        url: settings.url,
        secret,
        body: webhookBody(request),
        idempotencyKey: request.messageId,
        timeoutMs: settings.timeout_ms,
        now,
        label: "webhook",
      });
      // A provider answers a SendResult; the status code is for the status webhooks' log only.
      delete result.statusCode;
      return result;
    },
  };
}
