import {
  WEBHOOK_EVENT_TYPES,
  isWebhookEventFilter,
  isWebhookEventType,
  webhookFilterMatches,
} from "../event-types";

describe("isWebhookEventFilter", () => {
  test.each<[string, boolean]>([
    ["*", true],
    ["message.*", true],
    ["event.*", true],
    ["digest.*", true],
    ["broadcast.*", true],
    ["approval.*", true],
    ["recipient.*", true],
    ["message.sent", true],
    ["recipient.erased", true],
    ["webhook.test", false],
    ["webhook.*", false],
    ["message.opened", false],
    ["message", false],
    ["message.", false],
    ["*.sent", false],
    ["**", false],
    [".*", false],
    ["", false],
    ["MESSAGE.SENT", false],
    [" message.sent", false],
  ])("%j → %s", (filter, expected) => {
    expect(isWebhookEventFilter(filter)).toBe(expected);
  });

  it("accepts every listed type", () => {
    for (const type of WEBHOOK_EVENT_TYPES) expect(isWebhookEventFilter(type)).toBe(true);
  });
});

describe("webhookFilterMatches", () => {
  test.each<[string, string, boolean]>([
    ["*", "message.sent", true],
    ["*", "recipient.erased", true],
    ["*", "webhook.test", false],
    ["*", "message.opened", false],
    ["message.*", "message.sent", true],
    ["message.*", "message.engaged", true],
    ["message.*", "event.processed", false],
    ["event.*", "event.failed", true],
    ["event.*", "message.failed", false],
    ["recipient.*", "recipient.preferences_changed", true],
    ["message.sent", "message.sent", true],
    ["message.sent", "message.failed", false],
    ["message.sent", "message.sent.extra", false],
    ["webhook.*", "webhook.test", false],
    ["webhook.test", "webhook.test", false],
    ["mess*", "message.sent", false],
    ["message.", "message.sent", false],
    ["", "message.sent", false],
  ])("%j hears %j: %s", (filter, type, expected) => {
    expect(webhookFilterMatches(filter, type)).toBe(expected);
  });

  it("matches each type by itself, its family and *, and no other type", () => {
    for (const type of WEBHOOK_EVENT_TYPES) {
      const family = `${type.split(".")[0]}.*`;
      expect(webhookFilterMatches(type, type)).toBe(true);
      expect(webhookFilterMatches(family, type)).toBe(true);
      expect(webhookFilterMatches("*", type)).toBe(true);
      for (const other of WEBHOOK_EVENT_TYPES)
        if (other !== type) expect(webhookFilterMatches(type, other)).toBe(false);
    }
  });

  it("recognises the listed types only", () => {
    expect(WEBHOOK_EVENT_TYPES).toHaveLength(15);
    expect(isWebhookEventType("message.sent")).toBe(true);
    expect(isWebhookEventType("webhook.test")).toBe(false);
  });
});
