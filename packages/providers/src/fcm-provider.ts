// Firebase Cloud Messaging HTTP v1: a service-account bearer token, then messages:send per device.
import { z } from "zod";
import { googleAccessTokens, type ServiceAccount } from "./google-access-token";
import { parseJsonObject, providerPost, statusFailure } from "./http";
import { readPrivateKey } from "./jwt";
import { accepted, retryable, type Provider, type SendRequest } from "./provider";
import { httpUrl, parseSettings, requiredSecret, settingError, timeoutMs } from "./settings";
import type { ProviderSetup } from "./settings";

const FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging";
const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token";

export const fcmSettings = z.object({
  service_account_env: z.string(),
  /** Defaults to the service account's project_id. */
  project_id: z.string().min(1).optional(),
  base_url: httpUrl.default("https://fcm.googleapis.com"),
  timeout_ms: timeoutMs,
});

function fcmMessage(request: SendRequest) {
  const { title, body, url, thread } = request.content;
  const high = request.importance === "high" || request.importance === "critical";
  // FCM data values must be strings; event data stays out (the 4 KB payload limit).
  const data: Record<string, string> = {
    message_id: request.messageId,
    category: request.category,
    importance: request.importance,
  };
  if (url) data.url = url;
  if (thread) data.thread = thread;
  return {
    message: {
      token: request.to,
      notification: { title, body },
      data,
      android: { priority: high ? "HIGH" : "NORMAL", ...(thread ? { notification: { tag: thread } } : {}) },
      apns: {
        headers: { "apns-priority": high ? "10" : "5" },
        payload: { aps: thread ? { "thread-id": thread } : {} },
      },
    },
  };
}

export function createFcmProvider(setup: ProviderSetup): Provider {
  const settings = parseSettings(fcmSettings, setup);
  const account = readServiceAccount(setup);
  const projectId = settings.project_id ?? account.project_id;
  if (!projectId) {
    throw settingError(setup, "project_id", "required when the service account has no project_id");
  }
  const { now } = setup.context;
  const tokens = googleAccessTokens({
    account,
    scope: FCM_SCOPE,
    now,
    timeoutMs: settings.timeout_ms,
    label: "fcm",
  });
  const url = `${settings.base_url}/v1/projects/${encodeURIComponent(projectId)}/messages:send`;
  const post = providerPost("fcm", settings.timeout_ms);
  return {
    name: "fcm",
    async send(request) {
      const token = await tokens.get();
      if (typeof token !== "string") return token;
      const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json; charset=utf-8" };
      return post({ url, headers, body: JSON.stringify(fcmMessage(request)) }, (response) => {
        const answer = parseJsonObject(response.text);
        if (response.status >= 200 && response.status < 300) {
          return accepted(typeof answer.name === "string" ? answer.name : undefined);
        }
        const code = fcmErrorCode(answer);
        // A refused bearer token was revoked or expired early: fetch a new one on the next try.
        if (response.status === 401) {
          tokens.clear();
          return retryable(`fcm 401${code ? ` ${code}` : ""}`);
        }
        return statusFailure("fcm", response.status, response.headers, now(), code);
      });
    },
  };
}

/** FCM's own code (UNREGISTERED, QUOTA_EXCEEDED, ...) from the error details, else the RPC status. */
function fcmErrorCode(answer: Record<string, unknown>): string | undefined {
  const error = answer.error as { status?: unknown; details?: unknown } | undefined;
  if (!error || typeof error !== "object") return undefined;
  const details = Array.isArray(error.details) ? (error.details as { errorCode?: unknown }[]) : [];
  const fcmCode = details.find((detail) => typeof detail?.errorCode === "string")?.errorCode;
  if (typeof fcmCode === "string") return fcmCode;
  return typeof error.status === "string" ? error.status : undefined;
}

function readServiceAccount(setup: ProviderSetup): ServiceAccount {
  const fail = (message: string) => settingError(setup, "service_account_env", message);
  const text = requiredSecret(setup, "service_account");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (json === null || typeof json !== "object")
    throw fail("the variable does not hold service account JSON");
  const { client_email, private_key, private_key_id, token_uri, project_id } = json as Record<
    string,
    unknown
  >;
  if (typeof client_email !== "string" || typeof private_key !== "string") {
    throw fail("the service account JSON lacks client_email or private_key");
  }
  const key = readPrivateKey(private_key);
  if (!key) throw fail("the service account private_key is not a PEM private key");
  return {
    client_email,
    private_key: key,
    private_key_id: typeof private_key_id === "string" ? private_key_id : undefined,
    token_uri: typeof token_uri === "string" ? token_uri : DEFAULT_TOKEN_URI,
    project_id: typeof project_id === "string" ? project_id : undefined,
  };
}
