import { validateTemplate } from "../validate-template";

const en = { title: "Hi {{ data.name }}", body: "Body" };

describe("validateTemplate", () => {
  it.each([
    [{ locales: { en } }],
    [
      {
        default_locale: "de",
        locales: { en, "de-AT": en, de: { ...en, url: null, thread: "t", channels: { sms: { body: "x" } } } },
      },
    ],
    [{ default_locale: "pt-br", locales: { "pt-BR": en } }],
  ])("accepts %j", (template) => {
    expect(validateTemplate(template as never)).toEqual({ ok: true });
  });

  it.each([
    [{ locales: {} }, ["locales"], "locales: at least one locale is required"],
    [{ locales: { en: { title: "t" } } }, ["locales", "en", "body"], "locales.en.body: required"],
    [
      { locales: { en: { title: 1, body: "b" } } },
      ["locales", "en", "title"],
      "locales.en.title: must be a string",
    ],
    [{ locales: { "en us": en } }, ["locales", "en us"], "locales.en us: not a locale tag"],
    [{ locales: { en: "x" } }, ["locales", "en"], "locales.en: must be an object"],
    [
      { locales: { en: { title: "t", body: "one\ntwo\n{{ data.x }\nfour" } } },
      ["locales", "en", "body"],
      "locales.en.body: line 3: expected variable end",
    ],
    [
      { locales: { en: { title: "t", body: "a\n{% for x in y %}" } } },
      ["locales", "en", "body"],
      "locales.en.body: line 2: unexpected end of file",
    ],
    [
      { locales: { en: { ...en, url: "{{ data.id | bogus }}" } } },
      ["locales", "en", "url"],
      "locales.en.url: line 1: unknown filter: bogus",
    ],
    [
      { locales: { en: { ...en, channels: { push: { title: "ok", thread: "\n{% include 'x' %}" } } } } },
      ["locales", "en", "channels", "push", "thread"],
      "locales.en.channels.push.thread: line 2: include is not supported: templates are self-contained",
    ],
    [
      { locales: { en: { title: "t", body: "ok\n{% if data.n is divisible_by 3 %}x{% endif %}" } } },
      ["locales", "en", "body"],
      "locales.en.body: line 2: unknown test: divisible_by",
    ],
    [
      { locales: { en: { ...en, channels: { push: "x" } } } },
      ["locales", "en", "channels", "push"],
      "locales.en.channels.push: must be an object",
    ],
    [
      { default_locale: "fr", locales: { en } },
      ["default_locale"],
      "default_locale: no locale 'fr' in locales",
    ],
    [{ locales: { de: en } }, ["default_locale"], "default_locale: no locale 'en' in locales"],
  ])("rejects %j", (template, loc, detail) => {
    expect(validateTemplate(template as never)).toEqual({ ok: false, loc, detail });
  });
});
