import { profileChanges } from "../inline-profile";

const stored = {
  locale: "en",
  timezone: "Europe/Berlin",
  region: null,
  attributes: { plan: "pro", seats: 3 },
  addresses: [
    { channel: "email", value: "a@example.com", enabled: true },
    { channel: "sms", value: "+15550001", enabled: false },
  ],
};

describe("profileChanges", () => {
  it.each([
    ["nothing given", {}, []],
    ["same values", { locale: "en", timezone: "Europe/Berlin", region: null }, []],
    ["attributes in another key order", { attributes: { seats: 3, plan: "pro" } }, []],
    [
      "addresses in another order",
      {
        addresses: [
          { channel: "sms", value: "+15550001", enabled: false },
          { channel: "email", value: "a@example.com" },
        ],
      },
      [],
    ],
    ["another locale", { locale: "de" }, ["locale"]],
    ["region set", { region: "US-FL" }, ["region"]],
    ["locale cleared", { locale: null }, ["locale"]],
    ["another attribute value", { attributes: { plan: "free", seats: 3 } }, ["attributes"]],
    [
      "an address enabled",
      {
        addresses: [
          { channel: "email", value: "a@example.com" },
          { channel: "sms", value: "+15550001" },
        ],
      },
      ["addresses"],
    ],
    ["an address dropped", { addresses: [{ channel: "email", value: "a@example.com" }] }, ["addresses"]],
    ["several", { timezone: "UTC", attributes: {} }, ["timezone", "attributes"]],
  ])("%s", (_name, inline, expected) => {
    expect(profileChanges(stored, inline)).toEqual(expected);
  });
});
