// Text messages through Twilio's Messages API. The SMS carries the body (a template can override it
// per channel) and the link on its own line; a title has no place in a text message.
import { z } from "zod";
import { bodyWithLink } from "./content-text";
import { parseJsonObject, providerPost, statusFailure } from "./http";
import { accepted, type Provider, type SendRequest } from "./provider";
import { httpUrl, parseSettings, requiredSecret, timeoutMs, type ProviderSetup } from "./settings";

export const twilioSettings = z
  .object({
    account_sid: z.string().regex(/^AC[0-9A-Za-z]+$/, { error: "expected an account SID (AC…)" }),
    auth_token_env: z.string(),
    from: z.string().min(1).optional(),
    messaging_service_sid: z
      .string()
      .regex(/^MG[0-9A-Za-z]+$/, { error: "expected a messaging service SID (MG…)" })
      .optional(),
    status_callback_url: httpUrl.optional(),
    base_url: httpUrl.default("https://api.twilio.com"),
    timeout_ms: timeoutMs,
  })
  .refine((settings) => (settings.from === undefined) !== (settings.messaging_service_sid === undefined), {
    error: "set either from or messaging_service_sid",
    path: ["from"],
  });

function twilioForm(request: SendRequest, settings: z.output<typeof twilioSettings>): URLSearchParams {
  const form = new URLSearchParams({ To: request.to });
  if (settings.messaging_service_sid) form.set("MessagingServiceSid", settings.messaging_service_sid);
  else if (settings.from) form.set("From", settings.from);
  form.set("Body", bodyWithLink(request.content.body, request.content.url));
  if (settings.status_callback_url) form.set("StatusCallback", settings.status_callback_url);
  return form;
}

export function createTwilioProvider(setup: ProviderSetup): Provider {
  const settings = parseSettings(twilioSettings, setup);
  const authToken = requiredSecret(setup, "auth_token");
  const { now } = setup.context;
  const url = `${settings.base_url}/2010-04-01/Accounts/${settings.account_sid}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${settings.account_sid}:${authToken}`).toString("base64")}`;
  const post = providerPost("twilio", settings.timeout_ms);
  return {
    name: "twilio",
    send(request) {
      const headers = {
        Authorization: authorization,
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "application/json",
        "I-Twilio-Idempotency-Token": request.messageId,
      };
      return post({ url, headers, body: twilioForm(request, settings).toString() }, (response) => {
        const answer = parseJsonObject(response.text);
        if (response.status >= 200 && response.status < 300) {
          return accepted(typeof answer.sid === "string" ? answer.sid : undefined);
        }
        // Twilio's own error code (21211 invalid number, 21610 opted out, ...) is the useful part.
        const detail = typeof answer.code === "number" ? `code ${answer.code}` : undefined;
        return statusFailure("twilio", response.status, response.headers, now(), detail);
      });
    },
  };
}
