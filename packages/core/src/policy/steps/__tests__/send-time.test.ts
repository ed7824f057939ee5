import { runStep, type ContextOverrides } from "../../__tests__/context-factory";
import type { PolicyDraft } from "../../context";
import { sendTime } from "../send-time";

const MARKETING_TEXT: ContextOverrides = {
  category: { marketing: true },
  compliance: { usTextingRules: true },
  message: { channels: ["sms"] },
};

// Expected send_at (ISO) after the step, or null when the step passes (send_at unchanged).
describe("send time", () => {
  test.each<[string, ContextOverrides, Partial<PolicyDraft>, string | null]>([
    ["daytime, no delay", {}, {}, null],
    [
      "rule delay",
      { message: { rule: { key: "r", delaySeconds: 3600, cooldownSeconds: null } } },
      {},
      "2024-01-15T13:00:00.000Z",
    ],
    [
      "approved re-check: the delay was applied at composition",
      { message: { approved: true, rule: { key: "r", delaySeconds: 3600, cooldownSeconds: null } } },
      {},
      null,
    ],
    [
      "delay lands in quiet hours: moved to their end",
      { message: { rule: { key: "r", delaySeconds: 11 * 3600, cooldownSeconds: null } } },
      {},
      "2024-01-16T08:00:00.000Z",
    ],
    [
      "due inside default quiet hours (UTC)",
      { now: new Date("2024-01-15T23:00:00Z") },
      { sendAt: new Date("2024-01-15T23:00:00Z") },
      "2024-01-16T08:00:00.000Z",
    ],
    [
      "category ignores quiet hours",
      { now: new Date("2024-01-15T23:00:00Z"), category: { respectQuietHours: false } },
      { sendAt: new Date("2024-01-15T23:00:00Z") },
      null,
    ],
    [
      "recipient zone: 23:00 UTC is 18:00 in New York",
      { now: new Date("2024-01-15T23:00:00Z"), recipient: { timezone: "America/New_York" } },
      { sendAt: new Date("2024-01-15T23:00:00Z") },
      null,
    ],
    [
      "recipient zone: 22:30 UTC is 23:30 in Berlin",
      { now: new Date("2024-01-15T22:30:00Z"), recipient: { timezone: "Europe/Berlin" } },
      { sendAt: new Date("2024-01-15T22:30:00Z") },
      "2024-01-16T07:00:00.000Z",
    ],
    [
      "recipient without zone: the configured default zone",
      {
        now: new Date("2024-01-15T22:30:00Z"),
        recipient: { timezone: null },
        config: { defaultTimezone: "Europe/Berlin" },
      },
      { sendAt: new Date("2024-01-15T22:30:00Z") },
      "2024-01-16T07:00:00.000Z",
    ],
    [
      "recipient with an invalid zone: the default zone",
      {
        now: new Date("2024-01-15T22:30:00Z"),
        recipient: { timezone: "Mars/Base" },
        config: { defaultTimezone: "Europe/Berlin" },
      },
      { sendAt: new Date("2024-01-15T22:30:00Z") },
      "2024-01-16T07:00:00.000Z",
    ],
    [
      "recipient window overrides the default",
      { recipient: { quietHours: { start: "11:00", end: "13:30" } } },
      {},
      "2024-01-15T13:30:00.000Z",
    ],
    [
      "recipient window with equal start and end disables quiet hours",
      { now: new Date("2024-01-15T23:00:00Z"), recipient: { quietHours: { start: "00:00", end: "00:00" } } },
      { sendAt: new Date("2024-01-15T23:00:00Z") },
      null,
    ],
    [
      "New York spring-forward night: 08:00 EDT",
      { now: new Date("2024-03-10T04:00:00Z"), recipient: { timezone: "America/New_York" } },
      { sendAt: new Date("2024-03-10T04:00:00Z") },
      "2024-03-10T12:00:00.000Z",
    ],
    [
      "New York fall-back night: 08:00 EST",
      { now: new Date("2024-11-03T03:00:00Z"), recipient: { timezone: "America/New_York" } },
      { sendAt: new Date("2024-11-03T03:00:00Z") },
      "2024-11-03T13:00:00.000Z",
    ],
    [
      "critical: no delay and no quiet hours",
      {
        now: new Date("2024-01-15T23:00:00Z"),
        message: { importance: "critical", rule: { key: "r", delaySeconds: 600, cooldownSeconds: null } },
      },
      { sendAt: new Date("2024-01-15T23:00:00Z"), importance: "critical" },
      null,
    ],
    // US texting hours (docs/texting.md, "Jurisdictions"); 2024-06-09 is a Sunday.
    [
      "marketing text to Texas on Sunday morning: noon",
      {
        ...MARKETING_TEXT,
        now: new Date("2024-06-09T15:00:00Z"),
        recipient: { region: "US-TX", timezone: "America/Chicago" },
      },
      { sendAt: new Date("2024-06-09T15:00:00Z") },
      "2024-06-09T17:00:00.000Z",
    ],
    [
      "marketing text to Utah on Sunday: Monday 08:00",
      {
        ...MARKETING_TEXT,
        now: new Date("2024-06-09T18:00:00Z"),
        recipient: { region: "US-UT", timezone: "America/Denver" },
      },
      { sendAt: new Date("2024-06-09T18:00:00Z") },
      "2024-06-10T14:00:00.000Z",
    ],
    [
      "critical marketing text still waits for texting hours",
      {
        ...MARKETING_TEXT,
        message: { channels: ["sms"], importance: "critical" },
        now: new Date("2024-06-09T15:00:00Z"),
        recipient: { region: "US-TX", timezone: "America/Chicago" },
      },
      { sendAt: new Date("2024-06-09T15:00:00Z"), importance: "critical" },
      "2024-06-09T17:00:00.000Z",
    ],
    [
      "+1 number without region, strict: Sunday → Monday 09:00 in the recipient's zone",
      {
        ...MARKETING_TEXT,
        now: new Date("2024-06-09T15:00:00Z"),
        recipient: { timezone: "America/New_York" },
      },
      { sendAt: new Date("2024-06-09T15:00:00Z") },
      "2024-06-10T13:00:00.000Z",
    ],
    [
      "+1 number without region, federal: Sunday 11:00 is fine",
      {
        ...MARKETING_TEXT,
        compliance: { usTextingRules: true, unknownState: "federal" },
        now: new Date("2024-06-09T15:00:00Z"),
        recipient: { timezone: "America/New_York" },
      },
      { sendAt: new Date("2024-06-09T15:00:00Z") },
      null,
    ],
    [
      "texting rules off",
      {
        ...MARKETING_TEXT,
        compliance: { usTextingRules: false },
        now: new Date("2024-06-09T15:00:00Z"),
        recipient: { region: "US-TX", timezone: "America/Chicago" },
      },
      { sendAt: new Date("2024-06-09T15:00:00Z") },
      null,
    ],
    [
      "transactional text is unaffected",
      {
        ...MARKETING_TEXT,
        category: { marketing: false },
        now: new Date("2024-06-09T15:00:00Z"),
        recipient: { region: "US-TX", timezone: "America/Chicago" },
      },
      { sendAt: new Date("2024-06-09T15:00:00Z") },
      null,
    ],
    [
      "marketing e-mail is unaffected",
      {
        ...MARKETING_TEXT,
        message: { channels: ["email"] },
        now: new Date("2024-06-09T15:00:00Z"),
        recipient: { region: "US-TX", timezone: "America/Chicago" },
      },
      { sendAt: new Date("2024-06-09T15:00:00Z"), channels: ["email"] },
      null,
    ],
    [
      // The delivery worker checks the hours if it ever falls back to the text channel.
      "a text channel behind e-mail does not hold the e-mail",
      {
        ...MARKETING_TEXT,
        message: { channels: ["email", "sms"] },
        now: new Date("2024-06-09T15:00:00Z"),
        recipient: { region: "US-TX", timezone: "America/Chicago" },
      },
      { sendAt: new Date("2024-06-09T15:00:00Z"), channels: ["email", "sms"] },
      null,
    ],
    [
      "a text channel first, e-mail behind it: held",
      {
        ...MARKETING_TEXT,
        message: { channels: ["sms", "email"] },
        now: new Date("2024-06-09T15:00:00Z"),
        recipient: { region: "US-TX", timezone: "America/Chicago" },
      },
      { sendAt: new Date("2024-06-09T15:00:00Z"), channels: ["sms", "email"] },
      "2024-06-09T17:00:00.000Z",
    ],
    [
      "non-US region is unaffected even with a +1 number",
      {
        ...MARKETING_TEXT,
        now: new Date("2024-06-09T15:00:00Z"),
        recipient: { region: "CA", timezone: "America/Toronto" },
      },
      { sendAt: new Date("2024-06-09T15:00:00Z") },
      null,
    ],
    [
      "quiet hours then texting hours: 23:00 Saturday in Texas → Sunday 12:00",
      {
        ...MARKETING_TEXT,
        now: new Date("2024-06-09T04:00:00Z"),
        recipient: { region: "US-TX", timezone: "America/Chicago" },
      },
      { sendAt: new Date("2024-06-09T04:00:00Z") },
      "2024-06-09T17:00:00.000Z",
    ],
    [
      "texting hours then the person's own window: Sunday noon in Texas is quiet until 13:00",
      {
        ...MARKETING_TEXT,
        now: new Date("2024-06-09T15:00:00Z"),
        recipient: {
          region: "US-TX",
          timezone: "America/Chicago",
          quietHours: { start: "11:30", end: "13:00" },
        },
      },
      { sendAt: new Date("2024-06-09T15:00:00Z") },
      "2024-06-09T18:00:00.000Z",
    ],
    [
      "quiet hours covering all texting hours: the first legal time (the law wins)",
      {
        ...MARKETING_TEXT,
        now: new Date("2024-06-10T11:00:00Z"),
        recipient: {
          region: "US-FL",
          timezone: "America/New_York",
          quietHours: { start: "07:00", end: "21:00" },
        },
      },
      { sendAt: new Date("2024-06-10T11:00:00Z") },
      "2024-06-10T12:00:00.000Z",
    ],
  ])("%s", async (_why, o, draft, expected) => {
    const outcome = await runStep(sendTime, o, draft);
    if (expected === null) expect(outcome).toEqual({ kind: "pass" });
    else expect(outcome).toEqual({ kind: "defer", until: new Date(expected) });
  });
});
