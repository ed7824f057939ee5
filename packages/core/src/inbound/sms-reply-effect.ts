// What a STOP or START does to one person's preferences (docs/texting.md "STOP and START"):
// STOP mutes every text channel and leaves every category that allows unsubscribing; START
// unmutes the text channels only, so categories stay left until the person opts in again.

export interface SmsReplyEffectInput {
  action: "stop" | "start";
  /** `compliance.sms_channels`. */
  textChannels: readonly string[];
  /** Keys of the categories with `allow_unsubscribe: true`. */
  optionalCategories: readonly string[];
  mutedChannels: readonly string[];
  unsubscribedCategories: readonly string[];
}

/** Only the lists that change, as the new full lists; null when the person is already there. */
export interface SmsReplyChange {
  muted_channels?: string[];
  unsubscribed_categories?: string[];
}

const withAll = (current: readonly string[], added: readonly string[]) => [
  ...current,
  ...added.filter((item, i) => !current.includes(item) && added.indexOf(item) === i),
];

export function smsReplyEffect(input: SmsReplyEffectInput): SmsReplyChange | null {
  const change: SmsReplyChange = {};
  if (input.action === "stop") {
    const muted = withAll(input.mutedChannels, input.textChannels);
    if (muted.length !== input.mutedChannels.length) change.muted_channels = muted;
    const left = withAll(input.unsubscribedCategories, input.optionalCategories);
    if (left.length !== input.unsubscribedCategories.length) change.unsubscribed_categories = left;
  } else {
    const muted = input.mutedChannels.filter((channel) => !input.textChannels.includes(channel));
    if (muted.length !== input.mutedChannels.length) change.muted_channels = muted;
  }
  return Object.keys(change).length > 0 ? change : null;
}
