// OAuth 2.0 access tokens for a Google service account (RFC 7523 JWT bearer grant), cached until
// shortly before they expire; concurrent sends share one refresh.
import type { KeyObject } from "node:crypto";
import { parseJsonObject, providerPost, statusFailure } from "./http";
import { signJwt } from "./jwt";
import type { SendFailure } from "./provider";

export interface ServiceAccount {
  client_email: string;
  private_key: KeyObject;
  private_key_id?: string;
  token_uri: string;
  project_id?: string;
}

export interface AccessTokenSource {
  /** A bearer token, or why none could be had (classified like any provider answer). */
  get(): Promise<string | SendFailure>;
  /** Forget the cached token (the API refused it). */
  clear(): void;
}

const LIFETIME_SECONDS = 3600;
const REFRESH_MARGIN_MS = 60_000;

export function googleAccessTokens(options: {
  account: ServiceAccount;
  scope: string;
  now: () => Date;
  timeoutMs: number;
  label: string;
}): AccessTokenSource {
  let cached: { token: string; expiresAt: number } | undefined;
  let inFlight: Promise<string | SendFailure> | undefined;
  const label = `${options.label} token`;
  const post = providerPost(label, options.timeoutMs);

  async function exchange(): Promise<string | SendFailure> {
    const { account, now } = options;
    const issuedAt = Math.floor(now().getTime() / 1000);
    const assertion = signJwt(
      "RS256",
      account.private_key,
      {
        iss: account.client_email,
        scope: options.scope,
        aud: account.token_uri,
        iat: issuedAt,
        exp: issuedAt + LIFETIME_SECONDS,
      },
      account.private_key_id ? { kid: account.private_key_id } : {},
    );
    const request = {
      url: account.token_uri,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
        assertion,
      }).toString(),
    };
    return post(request, (response) => {
      const answer = parseJsonObject(response.text);
      if (response.status < 200 || response.status >= 300 || typeof answer.access_token !== "string") {
        const code = typeof answer.error === "string" ? answer.error : undefined;
        return statusFailure(label, response.status, response.headers, now(), code);
      }
      const expiresIn = typeof answer.expires_in === "number" ? answer.expires_in : LIFETIME_SECONDS;
      cached = {
        token: answer.access_token,
        expiresAt: now().getTime() + expiresIn * 1000 - REFRESH_MARGIN_MS,
      };
      return answer.access_token;
    });
  }

  return {
    async get() {
      if (cached && options.now().getTime() < cached.expiresAt) return cached.token;
      inFlight ??= exchange().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
    clear() {
      cached = undefined;
    },
  };
}
