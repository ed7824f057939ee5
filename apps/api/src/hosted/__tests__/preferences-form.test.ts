import type { OwnPreferencesView } from "@svc/engine";
import { preferencesFromForm } from "../preferences-form";
import { fill, stringsFor } from "../preferences-i18n";

const view: OwnPreferencesView = {
  locale: null,
  unsubscribed_categories: ["gone-category", "news"],
  muted_channels: ["fax"],
  quiet_hours: null,
  categories: [
    { key: "marketing", description: "", subscribed: true },
    { key: "news", description: "", subscribed: false },
  ],
  channels: [
    { name: "email", muted: false },
    { name: "sms", muted: false },
  ],
  link_category: null,
};
const t = stringsFor("en");

describe("preferencesFromForm", () => {
  it.each([
    [
      "ticked categories stay, unticked ones are left; unknown choices are kept",
      { form: "preferences", subscribed: "news", muted: ["sms", "pigeon"], quiet_start: "", quiet_end: "" },
      {
        unsubscribed_categories: ["gone-category", "marketing"],
        muted_channels: ["fax", "sms"],
        quiet_hours: null,
      },
    ],
    [
      "nothing ticked leaves every optional category and mutes nothing",
      { form: "preferences" },
      {
        unsubscribed_categories: ["gone-category", "marketing", "news"],
        muted_channels: ["fax"],
        quiet_hours: null,
      },
    ],
    [
      "quiet hours with seconds are cut to minutes",
      { subscribed: ["marketing", "news"], quiet_start: "21:30:00", quiet_end: "07:00" },
      {
        unsubscribed_categories: ["gone-category"],
        muted_channels: ["fax"],
        quiet_hours: { start: "21:30", end: "07:00" },
      },
    ],
  ])("%s", (_name, body, input) => {
    expect(preferencesFromForm(body, view, t)).toEqual({ ok: true, input });
  });

  it.each([
    ["only a start", { quiet_start: "22:00", quiet_end: "" }, t.quietBoth],
    ["only an end", { quiet_start: "", quiet_end: "06:00" }, t.quietBoth],
    ["not a time", { quiet_start: "late", quiet_end: "06:00" }, t.quietFormat],
    ["hour 24", { quiet_start: "24:00", quiet_end: "06:00" }, t.quietFormat],
  ])("refuses quiet hours with %s", (_name, body, error) => {
    expect(preferencesFromForm(body, view, t)).toMatchObject({ ok: false, errors: [error] });
  });
});

describe("stringsFor", () => {
  it.each([
    ["de", "de", "Benachrichtigungseinstellungen"],
    ["de-AT", "de", "Benachrichtigungseinstellungen"],
    ["DE_ch", "de", "Benachrichtigungseinstellungen"],
    ["en-GB", "en", "Notification preferences"],
    ["fr", "en", "Notification preferences"],
    [null, "en", "Notification preferences"],
  ])("%p speaks %s", (locale, lang, title) => {
    expect(stringsFor(locale)).toMatchObject({ lang, title });
  });

  it("falls back to English channel names a language lacks", () => {
    expect(stringsFor("de").channelNames).toMatchObject({ email: "E-Mail", sms: "SMS" });
  });

  it("names the built-in marketing category for people, in their language", () => {
    expect(stringsFor("en").categoryNames.marketing).toBe("Offers and promotions");
    expect(stringsFor("de").categoryNames.marketing).toBe("Angebote und Aktionen");
  });

  it("fills slots", () => {
    expect(fill(stringsFor("de").unsubscribeFrom, { category: "news" })).toBe("Von „news“ abmelden");
  });
});
