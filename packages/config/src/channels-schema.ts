// `channels.<name> = {provider | providers, ...settings}`. Provider settings stay open-ended (each
// provider validates its own), but the provider choice and the no-credentials rule are checked here.
import { z } from "zod";
import { looksLikeSecretKey, secretKeyMessage } from "./secret-keys";

export const PROVIDERS = [
  "console",
  "webhook",
  "smtp",
  "twilio",
  "webpush",
  "fcm",
  "apns",
  "slack",
  "inbox",
] as const;
export type ProviderName = (typeof PROVIDERS)[number];

// Same form as the keys of admin resources (docs/configuration.md, "channels").
export const CHANNEL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const providerName = z.enum(PROVIDERS);

type Ctx = z.RefinementCtx;

function checkSettings(value: unknown, path: (string | number)[], ctx: Ctx): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkSettings(item, [...path, index], ctx));
    return;
  }
  if (value === null || typeof value !== "object") return;
  for (const [key, inner] of Object.entries(value)) {
    // A group such as `credentials: {key_env: …}` is fine; a secret-looking key with a value is not.
    if (looksLikeSecretKey(key) && (inner === null || typeof inner !== "object")) {
      ctx.addIssue({ code: "custom", path: [...path, key], message: secretKeyMessage("", key) });
    } else if (
      key.toLowerCase().endsWith("_env") &&
      (typeof inner !== "string" || !ENV_VAR_NAME.test(inner))
    ) {
      ctx.addIssue({
        code: "custom",
        path: [...path, key],
        message: "expected the name of an environment variable",
      });
    } else {
      checkSettings(inner, [...path, key], ctx);
    }
  }
}

export const channelSchema = z
  .looseObject({
    provider: providerName.optional(),
    providers: z.array(providerName).min(1).optional(),
  })
  .superRefine((channel, ctx) => {
    if (channel.provider !== undefined && channel.providers !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["providers"],
        message: "set either provider or providers, not both",
      });
    } else if (channel.provider === undefined && channel.providers === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["provider"],
        message: `required: one of ${PROVIDERS.join(", ")} (or a providers list for failover)`,
      });
    }
    // The in-app inbox stores items in svc's own database: nothing to fail over to or from.
    if (
      channel.providers !== undefined &&
      channel.providers.length > 1 &&
      channel.providers.includes("inbox")
    ) {
      ctx.addIssue({
        code: "custom",
        path: ["providers"],
        message: "inbox cannot be part of a failover list",
      });
    }
    const seen = new Set<string>();
    channel.providers?.forEach((provider, index) => {
      if (seen.has(provider)) {
        ctx.addIssue({
          code: "custom",
          path: ["providers", index],
          message: `duplicate provider "${provider}"`,
        });
      }
      seen.add(provider);
    });
    const { provider: _p, providers: _ps, ...settings } = channel;
    checkSettings(settings, [], ctx);
  });

export type ChannelConfig = z.output<typeof channelSchema>;

/** Used when the `channels` key is absent altogether; `channels: {}` means "no channels". */
export function defaultChannels(): Record<string, ChannelConfig> {
  return { console: { provider: "console" } };
}

export const channelsSchema = z
  .record(z.string().regex(CHANNEL_NAME, { error: "invalid channel name" }), channelSchema)
  .default(defaultChannels);

/** The providers a channel tries, in order (a single `provider` is a list of one). */
export function channelProviders(channel: ChannelConfig): ProviderName[] {
  return channel.providers ?? (channel.provider ? [channel.provider] : []);
}

/**
 * Whether a channel is an in-app inbox (`provider: inbox`): every person is reachable on it without
 * an address (docs/inbox.md "The channel").
 */
export function isInboxChannel(channel: ChannelConfig): boolean {
  return channelProviders(channel).includes("inbox");
}

/** Names of the configured inbox channels. */
export function inboxChannelNames(channels: Record<string, ChannelConfig>): string[] {
  return Object.entries(channels)
    .filter(([, channel]) => isInboxChannel(channel))
    .map(([name]) => name);
}
