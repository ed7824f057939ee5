// Slack through chat.postMessage with a bot token: `to` is a channel or user id, so one channel
// config reaches many conversations (an incoming webhook is bound to one and cannot use `to`).
import { z } from "zod";
import { parseJsonObject, providerPost, statusFailure } from "./http";
import { accepted, permanent, retryable, type Provider, type SendRequest } from "./provider";
import { httpUrl, parseSettings, requiredSecret, timeoutMs, type ProviderSetup } from "./settings";

export const slackSettings = z.object({
  token_env: z.string(),
  base_url: httpUrl.default("https://slack.com/api"),
  timeout_ms: timeoutMs,
});

// Slack answers 200 with {ok: false, error}; these codes say "later", every other one "never".
const RETRYABLE_ERRORS = new Set([
  "ratelimited",
  "rate_limited",
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
]);

function mrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function slackMessage(request: SendRequest) {
  const { title, body, url } = request.content;
  const heading = url ? `*<${url}|${mrkdwn(title)}>*` : `*${mrkdwn(title)}*`;
  return {
    channel: request.to,
    // Shown in notifications and by clients without blocks.
    text: [title, body, url].filter(Boolean).join("\n"),
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: body ? `${heading}\n${mrkdwn(body)}` : heading } },
    ],
    unfurl_links: false,
    unfurl_media: false,
    metadata: { event_type: "svc_message", event_payload: { message_id: request.messageId } },
  };
}

export function createSlackProvider(setup: ProviderSetup): Provider {
  const settings = parseSettings(slackSettings, setup);
  const token = requiredSecret(setup, "token");
  const { now } = setup.context;
  const post = providerPost("slack", settings.timeout_ms);
  const url = `${settings.base_url}/chat.postMessage`;
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json; charset=utf-8" };
  return {
    name: "slack",
    send: (request) =>
      post({ url, headers, body: JSON.stringify(slackMessage(request)) }, (response) => {
        if (response.status < 200 || response.status >= 300) {
          return statusFailure("slack", response.status, response.headers, now());
        }
        const answer = parseJsonObject(response.text);
        if (answer.ok === true) return accepted(typeof answer.ts === "string" ? answer.ts : undefined);
        const code = typeof answer.error === "string" ? answer.error : "invalid_response";
        return RETRYABLE_ERRORS.has(code) ? retryable(`slack ${code}`) : permanent(`slack ${code}`);
      }),
  };
}
