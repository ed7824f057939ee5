import type { PolicyAddress } from "./context";

// The one rule for what a channel sends to (docs/inbox.md "The channel"): a channel's enabled
// addresses, except on an inbox channel, where every person is reachable without one: its single
// implicit address is the person's own inbox. Composition (reachability) and delivery both ask here.

/** The address value an inbox channel's send is recorded with (attempts), never a person's data. */
export const INBOX_ADDRESS = "inbox";

export function channelAddresses(
  addresses: readonly PolicyAddress[],
  channel: string,
  inboxChannels: readonly string[],
): string[] {
  if (inboxChannels.includes(channel)) return [INBOX_ADDRESS];
  return addresses.filter((a) => a.channel === channel && a.enabled).map((a) => a.value);
}
