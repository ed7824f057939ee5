// Secrets come only from the environment (docs/configuration.md, "Secrets"): the service's own
// four, and provider credentials named by a channel's `<setting>_env` settings.
import { ConfigError, type ConfigIssue } from "./config-error";
import type { Env } from "./env-overrides";
import type { ConfigValues } from "./schema";

export interface Secrets {
  /** Derives link tokens (HMAC key). */
  secretKey: string | null;
  /** Signs `approval.decided` callbacks. */
  callbackSecret: string | null;
  screeningApiKey: string | null;
  aiApiKey: string | null;
}

export const SECRET_VARIABLES: Record<keyof Secrets, string> = {
  secretKey: "SVC_SECRET_KEY",
  callbackSecret: "SVC_CALLBACK_SECRET",
  screeningApiKey: "SVC_SCREENING_API_KEY",
  aiApiKey: "SVC_AI_API_KEY",
};

// 32 characters of a random string carry well over the 128 bits an HMAC key needs.
export const MIN_SECRET_KEY_LENGTH = 32;

export function readSecrets(env: Env): Secrets {
  const read = (name: keyof Secrets) => env[SECRET_VARIABLES[name]] || null;
  const secrets: Secrets = {
    secretKey: read("secretKey"),
    callbackSecret: read("callbackSecret"),
    screeningApiKey: read("screeningApiKey"),
    aiApiKey: read("aiApiKey"),
  };
  if (secrets.secretKey !== null && secrets.secretKey.length < MIN_SECRET_KEY_LENGTH) {
    throw new ConfigError([
      { path: "", message: `SVC_SECRET_KEY must be at least ${MIN_SECRET_KEY_LENGTH} characters long` },
    ]);
  }
  return secrets;
}

function envSettingName(settingName: string): string {
  return settingName.endsWith("_env") ? settingName : `${settingName}_env`;
}

/**
 * The credential a channel names with `<setting>_env` (`secret_env: HOOK_SECRET` → env.HOOK_SECRET).
 * Undefined when the channel has no such setting; a named but unset variable is a ConfigError.
 */
export function channelSecret(
  config: Pick<ConfigValues, "channels">,
  env: Env,
  channelName: string,
  settingName: string,
): string | undefined {
  const channel = Object.hasOwn(config.channels, channelName) ? config.channels[channelName] : undefined;
  if (!channel)
    throw new ConfigError([{ path: `channels.${channelName}`, message: "channel is not configured" }]);
  const key = envSettingName(settingName);
  const variable = channel[key];
  if (variable === undefined) return undefined;
  const value = typeof variable === "string" ? env[variable] : undefined;
  if (!value) {
    throw new ConfigError([
      {
        path: `channels.${channelName}.${key}`,
        message: `environment variable ${String(variable)} is not set`,
      },
    ]);
  }
  return value;
}

// `*_env` settings at any depth of a channel's settings (providers may nest their own groups).
function envSettings(value: unknown, path: string): { path: string; variable: string }[] {
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key.endsWith("_env") && typeof inner === "string"
      ? [{ path: `${path}.${key}`, variable: inner }]
      : envSettings(inner, `${path}.${key}`),
  );
}

/**
 * Every secret the configuration asks for but the environment lacks, for a check at start:
 * channel `*_env` variables, SVC_CALLBACK_SECRET when callbacks are configured, and SVC_SECRET_KEY
 * unless the caller creates one itself (single-process `npm start`).
 */
export function missingSecrets(
  config: ConfigValues & { secrets: Secrets },
  env: Env,
  options: { requireSecretKey: boolean },
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (options.requireSecretKey && config.secrets.secretKey === null) {
    issues.push({ path: "", message: "SVC_SECRET_KEY is not set" });
  }
  const callbackIssue = missingCallbackSecret(config);
  if (callbackIssue) issues.push(callbackIssue);
  for (const [name, channel] of Object.entries(config.channels)) {
    for (const { path, variable } of envSettings(channel, `channels.${name}`)) {
      if (!env[variable]) issues.push({ path, message: `environment variable ${variable} is not set` });
    }
  }
  return issues;
}

type CallbackSettings = Pick<ConfigValues, "approvals"> & { secrets: Pick<Secrets, "callbackSecret"> };

// docs/approvals.md "Decision callbacks": an unsigned callback would be worthless to its receiver.
function missingCallbackSecret(config: CallbackSettings): ConfigIssue | null {
  if (config.approvals.callback_url === null || config.secrets.callbackSecret !== null) return null;
  return { path: "approvals.callback_url", message: "requires SVC_CALLBACK_SECRET to sign callbacks" };
}

/**
 * The secret that signs the decision callbacks, or null when no approvals.callback_url is set;
 * a ConfigError when the URL is set without SVC_CALLBACK_SECRET (the callback worker refuses to start).
 */
export function requireCallbackSecret(config: CallbackSettings): string | null {
  const issue = missingCallbackSecret(config);
  if (issue) throw new ConfigError([issue]);
  return config.approvals.callback_url === null ? null : config.secrets.callbackSecret;
}

/** Throws a ConfigError naming every missing secret (see missingSecrets). */
export function assertSecrets(
  config: ConfigValues & { secrets: Secrets },
  env: Env,
  options: { requireSecretKey: boolean },
): void {
  const issues = missingSecrets(config, env, options);
  if (issues.length > 0) throw new ConfigError(issues);
}
