import { reconnectDelayMs, safeUrl } from "../backoff";
import { relativeTime, stringsFor } from "../strings";

// The component's pure helpers; the component itself is tested in Chromium
// (apps/api/src/__tests__/inbox-browser.test.ts).

describe("stringsFor", () => {
  it.each([
    ["de", "de", "Benachrichtigungen"],
    ["de-AT", "de-AT", "Benachrichtigungen"],
    ["de_CH", "de-CH", "Benachrichtigungen"],
    ["en-GB", "en-GB", "Notifications"],
    ["fr", "en", "Notifications"],
    ["", "en", "Notifications"],
    [null, "en", "Notifications"],
  ])("%j → %s", (locale, tag, heading) => {
    const { tag: got, strings } = stringsFor(locale);
    expect(got).toBe(tag);
    expect(strings.notifications).toBe(heading);
  });

  it("counts in both languages", () => {
    expect(stringsFor("en").strings.unreadCount(3)).toBe("3 unread");
    expect(stringsFor("de").strings.unreadCount(3)).toBe("3 ungelesen");
  });
});

describe("relativeTime", () => {
  const now = new Date("2026-03-01T12:00:00Z");
  it.each([
    ["en", 20_000, "this minute"],
    ["en", 5 * 60_000, "5 minutes ago"],
    ["en", 3 * 3_600_000, "3 hours ago"],
    ["en", 86_400_000, "yesterday"],
    ["de", 5 * 60_000, "vor 5 Minuten"],
    ["de", 2 * 86_400_000, "vorgestern"],
  ])("%s, %d ms ago", (tag, ago, text) => {
    expect(relativeTime(tag, new Date(now.getTime() - ago), now)).toBe(text);
  });
});

describe("reconnectDelayMs", () => {
  it("doubles from 1 s to at most 30 s, jittered into the upper half", () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((n) => reconnectDelayMs(n, 1))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
    expect(reconnectDelayMs(0, 0)).toBe(500);
    expect(reconnectDelayMs(40, 0)).toBe(15_000);
  });
});

describe("safeUrl", () => {
  const page = "https://app.example.com/inbox";
  it.each([
    ["https://shop.example/orders/1", "https://shop.example/orders/1"],
    ["/orders/1", "https://app.example.com/orders/1"],
    ["javascript:alert(1)", null],
    ["data:text/html,hi", null],
    ["", null],
    [null, null],
  ])("%j → %j", (url, expected) => {
    expect(safeUrl(url, page)).toBe(expected);
  });
});
