import request from "supertest";
import twilio from "twilio";
import { startHarness, type Harness } from "./service-harness";

// Text replies through the API: a harness with a twilio text channel, and requests signed the way
// Twilio signs them, with the twilio package's own signer.

export const AUTH_TOKEN = "twilio-auth-token-for-tests";
export const PUBLIC_URL = "https://svc.example.com";
export const WEBHOOK = "/v1/inbound/smsprovider";

export function startInboundHarness(name: string): Promise<Harness> {
  return startHarness(name, {
    config: {
      api: { public_url: PUBLIC_URL },
      channels: {
        sms: {
          provider: "twilio",
          account_sid: "AC0123456789abcdef0123456789abcdef",
          auth_token_env: "TWILIO_AUTH_TOKEN",
          from: "+15550009999",
        },
        email: { provider: "console" },
      },
      compliance: { sms_channels: ["sms"] },
    },
    env: { TWILIO_AUTH_TOKEN: AUTH_TOKEN },
  });
}

/** What Twilio posts for an incoming text (the parameters of its messaging webhook). */
export function incomingMessage(from: string, body: string, messageSid: string): Record<string, string> {
  return {
    ToCountry: "US",
    ToState: "CA",
    SmsMessageSid: messageSid,
    NumMedia: "0",
    ToCity: "",
    FromZip: "33101",
    SmsSid: messageSid,
    FromState: "FL",
    SmsStatus: "received",
    FromCity: "MIAMI",
    Body: body,
    FromCountry: "US",
    To: "+15550009999",
    ToZip: "",
    NumSegments: "1",
    MessageSid: messageSid,
    AccountSid: "AC0123456789abcdef0123456789abcdef",
    From: from,
    ApiVersion: "2010-04-01",
  };
}

export interface WebhookOptions {
  /** Path and query string (default the webhook path). */
  path?: string;
  /** The signature to send; default: Twilio's, over public URL + path, with AUTH_TOKEN. */
  signature?: string | null;
}

/** POSTs the form as Twilio does. */
export function postWebhook(h: Harness, params: Record<string, string>, options: WebhookOptions = {}) {
  const path = options.path ?? WEBHOOK;
  const signature =
    options.signature === undefined
      ? twilio.getExpectedTwilioSignature(AUTH_TOKEN, `${PUBLIC_URL}${path}`, params)
      : options.signature;
  const req = request(h.app).post(path).type("form");
  if (signature !== null) req.set("X-Twilio-Signature", signature);
  return req.send(new URLSearchParams(params).toString());
}

export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

export async function ledgerOf(h: Harness, externalId: string) {
  const res = await h.as().get(`/v1/recipients/${externalId}/preferences/history`).expect(200);
  return (res.body.items as { source: string; changes: unknown; provenance: unknown }[])
    .filter((entry) => entry.source === "sms_keyword")
    .reverse() // oldest first
    .map(({ source, changes, provenance }) => ({ source, changes, provenance }));
}

export async function preferencesOf(h: Harness, externalId: string) {
  const res = await h.as().get(`/v1/recipients/${externalId}`).expect(200);
  return res.body.preferences as { muted_channels: string[]; unsubscribed_categories: string[] };
}
