import { ConfigError, parseConfig } from "@svc/config";
import { createProvider } from "../create-provider";
import type { InboxStore, SendRequest } from "../provider";
import { channel, providerContext } from "./fixtures";

// The `inbox` provider (docs/providers.md "inbox"): no settings, and it hands every send to the
// store the worker gives it (the engine's inbox store, tested with the real database elsewhere).

const request = { messageId: "msg_1", channel: "in_app" } as SendRequest;

it("hands each send to the inbox store and answers with its result", async () => {
  const seen: SendRequest[] = [];
  const store: InboxStore = {
    async deliver(given) {
      seen.push(given);
      return { ok: false, retryable: false, error: "inbox: the message no longer exists" };
    },
  };
  const provider = createProvider("in_app", channel({ provider: "inbox" }), {
    ...providerContext({}),
    inbox: store,
  });
  expect(provider.name).toBe("inbox");
  expect(await provider.send(request)).toEqual({
    ok: false,
    retryable: false,
    error: "inbox: the message no longer exists",
  });
  expect(seen).toEqual([request]);
});

it("takes no settings", () => {
  const run = () =>
    createProvider("in_app", channel({ provider: "inbox", url: "https://x.example" }), {
      ...providerContext({}),
      inbox: { deliver: async () => ({ ok: true }) },
    });
  expect(run).toThrow(ConfigError);
  try {
    run();
  } catch (error) {
    expect((error as ConfigError).issues).toEqual([
      { path: "channels.in_app.url", message: "unknown setting for inbox" },
    ]);
  }
});

it("needs the store from the process that delivers", () => {
  expect(() => createProvider("in_app", channel({ provider: "inbox" }), providerContext({}))).toThrow(
    "channel in_app: the inbox provider needs ProviderContext.inbox",
  );
});

it("cannot be part of a failover list", () => {
  expect(() => parseConfig({ channels: { in_app: { providers: ["inbox", "console"] } } })).toThrow(
    /channels\.in_app\.providers: inbox cannot be part of a failover list/,
  );
  expect(parseConfig({ channels: { in_app: { providers: ["inbox"] } } }).channels.in_app).toEqual({
    providers: ["inbox"],
  });
});
