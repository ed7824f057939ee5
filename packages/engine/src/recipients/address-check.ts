import { addressProblem, type AddressKind, type ValidationIssue } from "@svc/core";
import { channelProviders, type SvcConfig } from "@svc/config";

// Which rules an address follows comes from its channel's provider (docs/preferences.md
// "Addresses"): SMTP takes one e-mail address, text channels (Twilio, or any channel listed in
// compliance.sms_channels) an E.164 number, Web Push a subscription. A channel that is not
// configured, or whose provider takes any string, has only the common rules.

export type AddressConfig = Pick<SvcConfig, "channels" | "compliance">;

const SHOWN = 80;

function addressKindOf(config: AddressConfig, channel: string): AddressKind {
  const settings = Object.hasOwn(config.channels, channel) ? config.channels[channel] : undefined;
  const providers = settings ? channelProviders(settings) : [];
  if (providers.includes("smtp")) return "email";
  if (providers.includes("twilio") || config.compliance.sms_channels.includes(channel)) return "phone";
  if (providers.includes("webpush")) return "webpush";
  return "other";
}

/** One issue per address its channel cannot deliver to, each naming the address. */
export function addressIssues(
  config: AddressConfig,
  addresses: readonly { channel: string; value: string }[],
  loc: (index: number) => (string | number)[],
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  addresses.forEach((address, index) => {
    const kind = addressKindOf(config, address.channel);
    const settings = Object.hasOwn(config.channels, address.channel)
      ? config.channels[address.channel]
      : undefined;
    const problem = addressProblem(kind, address.value, {
      allowHttpPushEndpoints:
        (settings as { allow_http_endpoints?: unknown } | undefined)?.allow_http_endpoints === true,
    });
    if (problem === null) return;
    issues.push({
      loc: loc(index),
      msg: `${address.channel} address ${shown(address.value)} ${problem}`,
      type: "value_error",
    });
  });
  return issues;
}

/** The value as JSON (escapes visible), cut to a readable length. */
function shown(value: string): string {
  const json = JSON.stringify(value.length > SHOWN ? `${value.slice(0, SHOWN)}…` : value);
  return json;
}
