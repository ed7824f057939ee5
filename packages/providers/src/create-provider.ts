// Builds a channel's provider from `channels.<name>`: one provider, or a FailoverProvider over the
// `providers` list. All providers of a channel share its settings, so unknown keys are those no
// listed provider knows (a typo must stop the start, docs/configuration.md).
import { ConfigError, channelProviders, type ChannelConfig, type ProviderName } from "@svc/config";
import type { z } from "zod";
import { apnsSettings, createApnsProvider } from "./apns-provider";
import { consoleSettings, createConsoleProvider } from "./console-provider";
import { FailoverProvider } from "./failover-provider";
import { createInboxProvider, inboxSettings } from "./inbox-provider";
import { createFcmProvider, fcmSettings } from "./fcm-provider";
import type { Provider, ProviderContext } from "./provider";
import { settingError, type ProviderSetup } from "./settings";
import { createSlackProvider, slackSettings } from "./slack-provider";
import { createSmtpProvider, smtpSettings } from "./smtp-provider";
import { createTwilioProvider, twilioSettings } from "./twilio-provider";
import { createWebhookProvider, webhookSettings } from "./webhook-provider";
import { createWebpushProvider, webpushSettings } from "./webpush-provider";

interface ProviderDefinition {
  settingNames: readonly string[];
  create(setup: ProviderSetup): Provider;
}

function keysOf(schema: z.ZodType): string[] {
  const withShape = schema as unknown as {
    shape?: Record<string, unknown>;
    def?: { in?: z.ZodType; schema?: z.ZodType };
  };
  if (withShape.shape) return Object.keys(withShape.shape);
  const inner = withShape.def?.in ?? withShape.def?.schema;
  return inner ? keysOf(inner) : [];
}

function define(schema: z.ZodType, create: (setup: ProviderSetup) => Provider): ProviderDefinition {
  return { settingNames: keysOf(schema), create };
}

export const PROVIDER_DEFINITIONS: Record<ProviderName, ProviderDefinition> = {
  console: define(consoleSettings, createConsoleProvider),
  webhook: define(webhookSettings, createWebhookProvider),
  smtp: define(smtpSettings, createSmtpProvider),
  twilio: define(twilioSettings, createTwilioProvider),
  webpush: define(webpushSettings, createWebpushProvider),
  fcm: define(fcmSettings, createFcmProvider),
  apns: define(apnsSettings, createApnsProvider),
  slack: define(slackSettings, createSlackProvider),
  inbox: define(inboxSettings, createInboxProvider),
};

export function createProvider(
  channelName: string,
  channel: ChannelConfig,
  context: ProviderContext,
): Provider {
  const names = channelProviders(channel);
  if (names.length === 0) {
    throw settingError({ channelName }, "provider", "no provider configured");
  }
  rejectUnknownSettings(channelName, channel, names);
  const providers = names.map((name) => PROVIDER_DEFINITIONS[name].create({ channelName, channel, context }));
  const [only] = providers;
  return providers.length === 1 && only ? only : new FailoverProvider(providers);
}

/** A provider per configured channel, built at start so bad settings fail before any send. */
export function createProviders(
  channels: Record<string, ChannelConfig>,
  context: ProviderContext,
): Map<string, Provider> {
  const issues: ConfigError["issues"] = [];
  const providers = new Map<string, Provider>();
  for (const [name, channel] of Object.entries(channels)) {
    try {
      providers.set(name, createProvider(name, channel, context));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return providers;
}

function rejectUnknownSettings(channelName: string, channel: ChannelConfig, names: ProviderName[]) {
  const known = new Set([
    "provider",
    "providers",
    ...names.flatMap((name) => PROVIDER_DEFINITIONS[name].settingNames),
  ]);
  const unknown = Object.keys(channel).filter((key) => !known.has(key));
  if (unknown.length === 0) return;
  throw new ConfigError(
    unknown.map((key) => ({
      path: `channels.${channelName}.${key}`,
      message: `unknown setting for ${names.join(", ")}`,
    })),
  );
}
