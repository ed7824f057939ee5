import { chooseLocale } from "../locale";

const locales = { en: {}, de: {}, "pt-BR": {}, fr: {} };

describe("chooseLocale", () => {
  it.each([
    ["de-AT", "en", "de"], // language of the person's locale
    ["de", "en", "de"],
    ["pt-BR", "en", "pt-BR"], // exact
    ["pt-br", "en", "pt-BR"], // tags compare case-insensitively
    ["pt_BR", "en", "pt-BR"],
    ["pt-PT", "en", "en"], // no pt, falls to the default
    ["it", "fr", "fr"],
    [null, "fr", "fr"],
    [undefined, null, "en"], // default_locale defaults to en
    ["it", "es", null],
  ])("person %p, default %p -> %p", (person, fallback, expected) => {
    expect(chooseLocale(locales, person, fallback)).toBe(expected);
  });

  it("never picks inherited keys", () => {
    expect(chooseLocale({ en: {} }, "constructor", "toString")).toBeNull();
  });
});
