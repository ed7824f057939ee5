// Apple Push Notification service over HTTP/2 with token (ES256 JWT) authentication.
import { createHash, type KeyObject } from "node:crypto";
import { z } from "zod";
import { parseJsonObject, statusFailure, transportFailure } from "./http";
import { Http2Client } from "./http2-client";
import { readPrivateKey, signJwt } from "./jwt";
import { accepted, retryable, type Provider, type SendRequest } from "./provider";
import { httpUrl, parseSettings, requiredSecret, settingError, timeoutMs } from "./settings";
import type { ProviderSetup } from "./settings";

export const apnsSettings = z.object({
  key_id: z.string().regex(/^[A-Z0-9]{10}$/, { error: "expected the 10-character key id" }),
  team_id: z.string().regex(/^[A-Z0-9]{10}$/, { error: "expected the 10-character team id" }),
  private_key_env: z.string(),
  /** The app's bundle id, sent as apns-topic. */
  bundle_id: z.string().min(1),
  base_url: httpUrl.default("https://api.push.apple.com"),
  sound: z.string().min(1).optional(),
  timeout_ms: timeoutMs,
});

// Apple refuses tokens older than an hour and throttles refreshes more often than every 20 minutes.
const APNS_TOKEN_MAX_AGE_MS = 50 * 60 * 1000;

/** A stable UUID from the message id, so a repeated send carries the same apns-id. */
export function apnsId(messageId: string): string {
  const bytes = createHash("sha256").update(messageId).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50; // name-based (version 5 layout)
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function apnsPayload(request: SendRequest, sound: string | undefined) {
  const { title, body, url, thread } = request.content;
  const aps: Record<string, unknown> = { alert: { title, body } };
  if (thread) aps["thread-id"] = thread;
  if (sound) aps.sound = sound;
  if (request.importance === "critical") aps["interruption-level"] = "time-sensitive";
  return { aps, message_id: request.messageId, ...(url ? { url } : {}) };
}

export function createApnsProvider(setup: ProviderSetup): Provider {
  const settings = parseSettings(apnsSettings, setup);
  const key = readPrivateKey(requiredSecret(setup, "private_key"));
  if (!key || key.asymmetricKeyType !== "ec") {
    throw settingError(setup, "private_key_env", "the variable does not hold a .p8 (EC) private key");
  }
  const { now } = setup.context;
  const client = new Http2Client(settings.base_url);
  const tokens = providerTokens(key, settings.key_id, settings.team_id, now);
  return {
    name: "apns",
    async send(request) {
      const high = request.importance === "high" || request.importance === "critical";
      try {
        const response = await client.post(
          `/3/device/${encodeURIComponent(request.to)}`,
          {
            authorization: `bearer ${tokens.get()}`,
            "apns-topic": settings.bundle_id,
            "apns-push-type": "alert",
            "apns-priority": high ? "10" : "5",
            "apns-id": apnsId(request.messageId),
            "content-type": "application/json",
          },
          JSON.stringify(apnsPayload(request, settings.sound)),
          settings.timeout_ms,
        );
        if (response.status === 200) return accepted(response.headers.get("apns-id") ?? undefined);
        const reason = parseJsonObject(response.text).reason;
        const code = typeof reason === "string" ? reason : undefined;
        // Our token aged out (clock skew, a long pause): sign a new one and try again.
        if (response.status === 403 && code === "ExpiredProviderToken") {
          tokens.clear();
          return retryable("apns 403 ExpiredProviderToken");
        }
        return statusFailure("apns", response.status, response.headers, now(), code);
      } catch (error) {
        return transportFailure("apns", error, settings.timeout_ms);
      }
    },
    close: () => client.close(),
  };
}

function providerTokens(key: KeyObject, keyId: string, teamId: string, now: () => Date) {
  let cached: { token: string; issuedAt: number } | undefined;
  return {
    get(): string {
      const at = now().getTime();
      if (!cached || at - cached.issuedAt >= APNS_TOKEN_MAX_AGE_MS) {
        cached = {
          token: signJwt("ES256", key, { iss: teamId, iat: Math.floor(at / 1000) }, { kid: keyId }),
          issuedAt: at,
        };
      }
      return cached.token;
    },
    clear() {
      cached = undefined;
    },
  };
}
