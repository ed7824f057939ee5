import { textingAtDelivery, type TextingAtDeliveryInput } from "../texting-at-delivery";

// docs/texting.md "At delivery": a text channel outside legal hours waits for the next opening,
// or the message expires when that opening is at or after `expires_at`.
// 2024-06-10 is a Monday; Florida follows America/New_York (EDT, UTC-4 in June).

const input = (over: Partial<TextingAtDeliveryInput> = {}): TextingAtDeliveryInput => ({
  now: new Date("2024-06-11T01:30:00Z"), // Monday 21:30 EDT
  channel: "sms",
  marketing: true,
  expiresAt: null,
  recipient: {
    region: "US-FL",
    timezone: "America/New_York",
    addresses: [{ channel: "sms", value: "+13055550100", enabled: true }],
  },
  compliance: { usTextingRules: true, smsChannels: ["sms"], unknownState: "strict" },
  defaultTimezone: "UTC",
  ...over,
});

const FLORIDA_8AM = new Date("2024-06-11T12:00:00Z"); // Tuesday 08:00 EDT

test("Florida 21:30 local: wait until 08:00", () => {
  const decision = textingAtDelivery(input());
  expect(decision).toMatchObject({ kind: "wait", until: FLORIDA_8AM });
  expect(decision.kind !== "send" && decision.jurisdiction.name).toBe("Florida");
});

test.each<[string, Partial<TextingAtDeliveryInput>]>([
  ["inside legal hours", { now: new Date("2024-06-10T16:00:00Z") }],
  ["at the opening minute", { now: FLORIDA_8AM }],
  [
    "the rules are off",
    { compliance: { usTextingRules: false, smsChannels: ["sms"], unknownState: "strict" } },
  ],
  ["a category not marked marketing", { marketing: false }],
  ["a channel that is not a text channel", { channel: "email" }],
  [
    "not a US recipient (region CA, whatever the number)",
    { recipient: { region: "CA", timezone: "America/Toronto", addresses: [] } },
  ],
  [
    "no region and no +1 number on the channel",
    {
      recipient: {
        region: null,
        timezone: "Europe/Berlin",
        addresses: [{ channel: "sms", value: "+491701234567", enabled: true }],
      },
    },
  ],
  [
    "no region, and the +1 number is on another channel",
    {
      recipient: {
        region: null,
        timezone: null,
        addresses: [
          { channel: "sms", value: "+491701234567", enabled: true },
          { channel: "whatsapp", value: "+13055550100", enabled: true },
        ],
      },
    },
  ],
])("sends: %s", (_why, over) => {
  expect(textingAtDelivery(input(over))).toEqual({ kind: "send" });
});

test.each<[string, Date, "wait" | "expired"]>([
  ["expires after the opening: wait", new Date("2024-06-11T12:00:01Z"), "wait"],
  ["expires exactly at the opening: expired", FLORIDA_8AM, "expired"],
  ["expires overnight: expired", new Date("2024-06-11T04:00:00Z"), "expired"],
])("%s", (_why, expiresAt, kind) => {
  expect(textingAtDelivery(input({ expiresAt }))).toMatchObject({ kind, until: FLORIDA_8AM });
});

test("no region, a +1 number: unknown state under compliance.unknown_state", () => {
  const recipient = {
    region: null,
    timezone: "America/Chicago",
    addresses: [{ channel: "sms", value: "+1 (512) 555-0100", enabled: true }],
  };
  // Monday 20:30 CDT: closed under strict (09:00-20:00), open under federal (08:00-21:00).
  const now = new Date("2024-06-11T01:30:00Z");
  expect(textingAtDelivery(input({ now, recipient }))).toMatchObject({
    kind: "wait",
    until: new Date("2024-06-11T14:00:00Z"),
  });
  const federal = { usTextingRules: true, smsChannels: ["sms"], unknownState: "federal" as const };
  expect(textingAtDelivery(input({ now, recipient, compliance: federal }))).toEqual({ kind: "send" });
});

test("a disabled +1 address does not make a US recipient", () => {
  const recipient = {
    region: null,
    timezone: "America/New_York",
    addresses: [{ channel: "sms", value: "+13055550100", enabled: false }],
  };
  expect(textingAtDelivery(input({ recipient }))).toEqual({ kind: "send" });
});

test.each([
  // Without a zone the recipient's clock is policy.default_timezone.
  ["default UTC: 01:30 UTC is closed, opens 08:00 UTC", "UTC", "2024-06-11T08:00:00.000Z"],
  ["default New York: 21:30 EDT, opens 08:00 EDT", "America/New_York", "2024-06-11T12:00:00.000Z"],
])("a recipient without a zone, %s", (_why, defaultTimezone, until) => {
  const recipient = { ...input().recipient, timezone: null };
  const decision = textingAtDelivery(input({ recipient, defaultTimezone }));
  expect(decision.kind === "wait" && decision.until.toISOString()).toBe(until);
});
