import { inboxChannelNames, isInboxChannel } from "../channels-schema";
import { parseConfig } from "../load-config";

// The `inbox` section (docs/configuration.md "inbox") and which channels are inboxes.

describe("inbox settings", () => {
  it.each([["https://app.example.com"], ["http://localhost:3000"], ["*"]])(
    "accepts the origin %j",
    (origin) => {
      expect(parseConfig({ inbox: { allowed_origins: [origin] } }).inbox.allowed_origins).toEqual([origin]);
    },
  );

  it.each([
    ["https://app.example.com/", "a path"],
    ["https://app.example.com/inbox", "a path"],
    ["app.example.com", "no scheme"],
    ["ftp://app.example.com", "another scheme"],
    ["https://*.example.com", "a wildcard"],
  ])("refuses the origin %j (%s)", (origin) => {
    expect(() => parseConfig({ inbox: { allowed_origins: [origin] } })).toThrow(
      /inbox\.allowed_origins\.0: expected an origin such as https:\/\/app\.example\.com/,
    );
  });

  it.each([
    [{ token_ttl_seconds: 0 }, /inbox\.token_ttl_seconds/],
    [{ token_ttl_seconds: 31 * 86400 }, /inbox\.token_ttl_seconds/],
    [{ heartbeat_seconds: 26 }, /inbox\.heartbeat_seconds/],
    [{ max_streams_per_person: 0 }, /inbox\.max_streams_per_person/],
    [{ typo: 1 }, /inbox/],
  ])("refuses %j", (inbox, error) => {
    expect(() => parseConfig({ inbox })).toThrow(error);
  });
});

it("names the inbox channels", () => {
  const { channels } = parseConfig({
    channels: {
      in_app: { provider: "inbox" },
      email: { provider: "console" },
      bell: { providers: ["inbox"] },
    },
  });
  expect(inboxChannelNames(channels)).toEqual(["in_app", "bell"]);
  expect(isInboxChannel(channels.email!)).toBe(false);
});
