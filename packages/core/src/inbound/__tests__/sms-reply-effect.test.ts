import { smsReplyEffect, type SmsReplyEffectInput } from "../sms-reply-effect";

// docs/texting.md "STOP and START": STOP mutes every text channel and leaves every optional
// category; START unmutes text channels only.
const base: Omit<SmsReplyEffectInput, "action"> = {
  textChannels: ["sms", "sms-backup"],
  optionalCategories: ["marketing", "news"],
  mutedChannels: [],
  unsubscribedCategories: [],
};

test.each<[string, SmsReplyEffectInput, ReturnType<typeof smsReplyEffect>]>([
  [
    "STOP from nothing: every text channel muted, every optional category left",
    { ...base, action: "stop" },
    { muted_channels: ["sms", "sms-backup"], unsubscribed_categories: ["marketing", "news"] },
  ],
  [
    "STOP keeps what was there and adds the rest, in order",
    { ...base, action: "stop", mutedChannels: ["push", "sms"], unsubscribedCategories: ["news"] },
    { muted_channels: ["push", "sms", "sms-backup"], unsubscribed_categories: ["news", "marketing"] },
  ],
  [
    "STOP when texts are muted already: only categories change",
    { ...base, action: "stop", mutedChannels: ["sms-backup", "sms"] },
    { unsubscribed_categories: ["marketing", "news"] },
  ],
  [
    "STOP when everything is already so: nothing",
    {
      ...base,
      action: "stop",
      mutedChannels: ["sms", "sms-backup"],
      unsubscribedCategories: ["news", "marketing"],
    },
    null,
  ],
  [
    "STOP without text channels configured: categories only",
    { ...base, action: "stop", textChannels: [] },
    { unsubscribed_categories: ["marketing", "news"] },
  ],
  [
    "START unmutes text channels and keeps other mutes and every unsubscribe",
    {
      ...base,
      action: "start",
      mutedChannels: ["push", "sms", "sms-backup"],
      unsubscribedCategories: ["marketing"],
    },
    { muted_channels: ["push"] },
  ],
  ["START when texts are not muted: nothing", { ...base, action: "start", mutedChannels: ["push"] }, null],
])("%s", (_why, input, expected) => {
  expect(smsReplyEffect(input)).toEqual(expected);
});
