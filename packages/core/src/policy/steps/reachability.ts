// Keep planned channels that are configured, not muted, and have an address to send to: an enabled
// address, or, on an inbox channel, the person themselves (docs/policy.md, "Order of the steps").
import { channelAddresses } from "../channel-addresses";
import { change, drop, pass, type PolicyStep } from "../context";
import { REASON } from "../reasons";

export const reachability: PolicyStep = {
  name: "reachability",
  run(ctx, draft) {
    const { recipient, config } = ctx;
    const reachable = [...new Set(draft.channels)].filter(
      (channel) =>
        config.channels.includes(channel) &&
        !recipient.mutedChannels.includes(channel) &&
        channelAddresses(recipient.addresses, channel, config.inboxChannels).length > 0,
    );
    if (reachable.length === 0) return drop("suppressed", REASON.noReachableChannel);
    const unchanged = reachable.length === draft.channels.length;
    return unchanged ? pass() : change({ channels: reachable });
  },
};
