// Provider settings live beside `provider` in `channels.<name>` and are checked by each provider
// (docs/configuration.md): bad or missing ones stop the start with a ConfigError naming the key.
import { ConfigError, channelSecret, type ChannelConfig } from "@svc/config";
import { z } from "zod";
import type { ProviderContext } from "./provider";

export interface ProviderSetup {
  channelName: string;
  channel: ChannelConfig;
  context: ProviderContext;
}

const DEFAULT_TIMEOUT_MS = 10_000;
export const timeoutMs = z.number().int().positive().max(300_000).default(DEFAULT_TIMEOUT_MS);
export const httpUrl = z
  .string()
  .refine((value) => /^https?:\/\/[^/]/.test(value) && URL.canParse(value), {
    error: "expected an http(s) URL",
  })
  .transform((value) => value.replace(/\/+$/, ""));

export function parseSettings<Schema extends z.ZodType>(
  schema: Schema,
  setup: ProviderSetup,
): z.output<Schema> {
  const parsed = schema.safeParse(setup.channel);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    parsed.error.issues.map((issue) => ({
      path: ["channels", setup.channelName, ...issue.path.map(String)].join("."),
      // "required" reads better than zod's "expected string, received undefined".
      message: issue.code === "invalid_type" && issue.input === undefined ? "required" : issue.message,
    })),
  );
}

/** The credential named by `<setting>_env`; a ConfigError when the setting or the variable is missing. */
export function requiredSecret(setup: ProviderSetup, setting: string): string {
  const value = optionalSecret(setup, setting);
  if (value === undefined) {
    throw settingError(
      setup,
      `${setting}_env`,
      "required: the name of the environment variable holding the credential",
    );
  }
  return value;
}

/** The credential named by `<setting>_env` when that setting is present. */
export function optionalSecret(setup: ProviderSetup, setting: string): string | undefined {
  return channelSecret(
    { channels: { [setup.channelName]: setup.channel } },
    setup.context.env,
    setup.channelName,
    setting,
  );
}

/** A ConfigError naming one setting of the channel, `channels.<name>.<setting>`. */
export function settingError(setup: Pick<ProviderSetup, "channelName">, setting: string, message: string) {
  return new ConfigError([{ path: `channels.${setup.channelName}.${setting}`, message }]);
}
