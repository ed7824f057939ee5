import { AppError } from "@svc/core";
import { channelProviders, channelSecret, ConfigError, type Env, type SvcConfig } from "@svc/config";
import { emptyTwilioReply, verifyTwilioSignature, type TwilioParams } from "@svc/providers";

// `POST /v1/inbound/smsprovider` (docs/texting.md "Twilio"): Twilio signs every webhook request
// with the auth token of the account (X-Twilio-Signature) over the URL it called, which is
// `api.public_url` followed by the path and query string as this service received them, then the
// POST parameters. The tokens are those of the twilio channels listed in compliance.sms_channels.

export interface ProviderWebhookAuth {
  /** `api.public_url` (no trailing slash), or null when not configured. */
  publicUrl: string | null;
  /** Auth tokens of the twilio channels among compliance.sms_channels (`auth_token_env`). */
  authTokens: string[];
}

/** Read once at start: the credentials come from the environment only. */
export function providerWebhookAuth(config: Pick<SvcConfig, "api" | "channels" | "compliance">, env: Env) {
  const tokens: string[] = [];
  for (const name of config.compliance.sms_channels) {
    const channel = config.channels[name];
    if (!channel || !channelProviders(channel).includes("twilio")) continue;
    try {
      const token = channelSecret(config, env, name, "auth_token");
      if (token) tokens.push(token);
    } catch (error) {
      // A start checks every *_env variable (assertSecrets); here a missing one only means
      // that no request can be verified with it.
      if (!(error instanceof ConfigError)) throw error;
    }
  }
  return { publicUrl: config.api.public_url ?? null, authTokens: [...new Set(tokens)] };
}

export interface SignedRequest {
  /** Path and query string as received (`req.originalUrl`). */
  pathAndQuery: string;
  /** The form-encoded POST parameters. */
  params: TwilioParams;
  /** The X-Twilio-Signature header. */
  signature: string | undefined;
}

/**
 * Throws 403 unless the request carries Twilio's signature. When svc has nothing to check it
 * against (no public URL, no auth token) no request can be trusted: 403 too, saying what is missing.
 */
export function verifyTwilioWebhook(auth: ProviderWebhookAuth, request: SignedRequest): void {
  if (auth.publicUrl === null) {
    throw new AppError(
      "forbidden",
      "svc cannot check X-Twilio-Signature: api.public_url, the address Twilio signs, is not configured",
    );
  }
  if (auth.authTokens.length === 0) {
    throw new AppError(
      "forbidden",
      "svc cannot check X-Twilio-Signature: no twilio channel with an auth token is listed in compliance.sms_channels",
    );
  }
  if (!request.signature) throw new AppError("forbidden", "missing X-Twilio-Signature header");
  const url = `${auth.publicUrl}${request.pathAndQuery}`;
  const valid = auth.authTokens.some((token) =>
    verifyTwilioSignature(token, url, request.params, request.signature),
  );
  if (!valid) {
    throw new AppError(
      "forbidden",
      `X-Twilio-Signature does not match this request (svc checks it for ${url})`,
    );
  }
}

/** The webhook's answer: empty TwiML, so Twilio sends nothing back itself on svc's behalf. */
export const twilioWebhookAnswer = (): string => emptyTwilioReply();
