// The in-app inbox (docs/inbox.md "The channel"): delivering stores the message's content for the
// channel as the person's inbox item in svc's own database. No settings, no address: every person
// is reachable on an inbox channel. The store is the engine's (ProviderContext.inbox).
import { z } from "zod";
import type { Provider } from "./provider";
import { parseSettings, type ProviderSetup } from "./settings";

export const inboxSettings = z.object({});

export function createInboxProvider(setup: ProviderSetup): Provider {
  parseSettings(inboxSettings, setup);
  const store = setup.context.inbox;
  // A wiring error, not a configuration one: every process that delivers hands the store in.
  if (!store) throw new Error(`channel ${setup.channelName}: the inbox provider needs ProviderContext.inbox`);
  return { name: "inbox", send: (request) => store.deliver(request) };
}
