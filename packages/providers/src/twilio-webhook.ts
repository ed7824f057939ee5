// Twilio's inbound webhooks, with Twilio's own helper library (the `twilio` package): the request
// signature (X-Twilio-Signature, base64 HMAC-SHA1 of the full URL followed by every POST parameter
// name and value, sorted by name; validateRequest also accepts the URL with or without its default
// port, as Twilio may sign either) and the TwiML answer. These are the functions `twilio`
// exports as twilio.validateRequest, twilio.getExpectedTwilioSignature and twilio.twiml; the
// modules are imported directly so the REST client is not loaded. docs/texting.md "Twilio".
import MessagingResponse from "twilio/lib/twiml/MessagingResponse";
import { getExpectedTwilioSignature, validateRequest } from "twilio/lib/webhooks/webhooks";

/** Form parameters as a form parser gives them (a repeated name holds a list). */
export type TwilioParams = Record<string, string | string[]>;

export function twilioSignature(authToken: string, url: string, params: TwilioParams): string {
  return getExpectedTwilioSignature(authToken, url, params);
}

/** True when `signature` is Twilio's signature of `url` and `params` under `authToken`. */
export function verifyTwilioSignature(
  authToken: string,
  url: string,
  params: TwilioParams,
  signature: string | null | undefined,
): boolean {
  if (!signature) return false;
  return validateRequest(authToken, signature, url, params);
}

/** An empty TwiML answer: Twilio sends no reply text of its own accord. */
export function emptyTwilioReply(): string {
  return new MessagingResponse().toString();
}
