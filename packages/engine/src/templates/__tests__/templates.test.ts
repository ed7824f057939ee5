import { parseConfig } from "@svc/config";
import { AppError, newId } from "@svc/core";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { previewTemplate } from "../preview-template";
import { templatesResource } from "../templates-resource";

// Templates as admin resources and their preview (docs/templates.md "Shape", "Which locale",
// "Variables", "Escaping", "Errors"; docs/api.md "Admin resources"; docs/decisions.md "Admin
// resources, templates, recipients over HTTP"): every string is compiled when saved (422 naming
// the field and line), and a preview renders as a message would, writing nothing.

const NOW = new Date("2024-01-15T12:00:00.000Z");

let db: TestDatabase;
let clock: Date;
const config = parseConfig(
  {
    channels: {
      email: { provider: "smtp", host: "127.0.0.1", port: 9, from: "Shop <noreply@shop.example>" },
      sms: { provider: "console" },
    },
  },
  {},
);
const templates = () => templatesResource({ prisma: db.prisma });
const deps = () => ({ prisma: db.prisma, config, now: () => clock });

const welcome = {
  en: {
    title: "Hello {{ recipient.attributes.first_name | default('there') }}<{{ data.tag }}>",
    body: "Order {{ data.order_id }} ({{ event.name }} {{ event.id }} at {{ event.created_at }}): {{ data.tag }}",
    url: "https://shop.example/orders/{{ data.order_id }}",
    thread: "order-{{ data.order_id }}",
    channels: { sms: { body: "SMS {{ data.order_id }}", url: null } },
  },
  de: { title: "Hallo {{ recipient.attributes.first_name }}", body: "Bestellung {{ data.order_id }}" },
};

beforeAll(async () => {
  db = await createTestDatabase("engine_templates");
  clock = NOW;
  await templates().create("welcome", { locales: welcome }, NOW);
  await db.prisma.recipient.create({
    data: {
      id: newId("recipient"),
      external_id: "ann",
      locale: "de-AT",
      attributes: { first_name: "Ann" },
    },
  });
});
afterAll(() => db.drop());
beforeEach(() => {
  clock = NOW;
});

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("templatesResource", () => {
  test("create keeps the locales as given and fills the defaults; a taken key is 409", async () => {
    const locales = {
      "de-AT": { title: "Bestellung", body: "Versandt" },
      en: { title: "Order", body: "Shipped" },
    };
    const view = await templates().create("shipped", { default_locale: "de-AT", locales }, NOW);
    expect(view).toEqual({
      key: "shipped",
      default_locale: "de-AT",
      locales,
      ai_attributes: [],
      created_at: NOW.toISOString(),
      updated_at: expect.any(String),
    });
    expect(await db.prisma.template.findUniqueOrThrow({ where: { key: "shipped" } })).toMatchObject({
      default_locale: "de-AT",
      locales,
    });
    const plain = await templates().create("plain", { locales: { en: { title: "T", body: "B" } } }, NOW);
    expect(plain.default_locale).toBe("en");
    expect(await refusal(templates().create("shipped", { locales }, NOW))).toMatchObject({
      code: "conflict",
      status: 409,
    });
  });

  test("a string that does not compile is a 422 naming its field and line; nothing is stored", async () => {
    const syntax = await refusal(
      templates().create(
        "broken",
        { locales: { en: { title: "Hi", body: "Hello\n{{ data.name }\n" } } },
        NOW,
      ),
    );
    expect(syntax).toMatchObject({
      code: "validation",
      status: 422,
      detail: "body.locales.en.body: line 2: expected variable end",
    });
    expect(syntax.errors).toEqual([
      {
        loc: ["body", "locales", "en", "body"],
        msg: "line 2: expected variable end",
        type: "template_error",
      },
    ]);
    // Unknown filters are caught at save time, inside channel overrides and rarely-run branches too.
    const filter = await refusal(
      templates().create(
        "broken",
        {
          locales: {
            en: {
              title: "T",
              body: "{% if data.never %}{{ data.x | bogus }}{% endif %}",
              channels: { sms: { title: "x" } },
            },
          },
        },
        NOW,
      ),
    );
    expect(filter.errors).toEqual([
      {
        loc: ["body", "locales", "en", "body"],
        msg: "line 1: unknown filter: bogus",
        type: "template_error",
      },
    ]);
    const noDefault = await refusal(
      templates().create("broken", { default_locale: "fr", locales: { en: { title: "T", body: "B" } } }, NOW),
    );
    expect(noDefault.code).toBe("validation");
    expect(await db.prisma.template.findUnique({ where: { key: "broken" } })).toBeNull();
  });

  test("PATCH is checked against the merged template; PUT resets what it leaves out; reads and deletes 404 when absent", async () => {
    await templates().create(
      "patched",
      {
        locales: { en: { title: "T", body: "B" }, de: { title: "T", body: "B" } },
        ai_attributes: ["order_id"],
      },
      NOW,
    );
    const patched = await templates().update("patched", { default_locale: "de" }, NOW);
    expect(patched).toMatchObject({ default_locale: "de", ai_attributes: ["order_id"] });
    expect(Object.keys(patched.locales).sort()).toEqual(["de", "en"]); // jsonb keeps its own key order
    // The stored default (de) is no locale of the new locales: refused, nothing changed.
    const error = await refusal(
      templates().update("patched", { locales: { en: { title: "T", body: "B" } } }, NOW),
    );
    expect(error.code).toBe("validation");
    expect((await templates().get("patched")).default_locale).toBe("de");
    const replaced = await templates().replace(
      "patched",
      { default_locale: "en", locales: { en: { title: "T2", body: "B2" } } },
      NOW,
    );
    expect(replaced).toEqual({
      created: false,
      view: expect.objectContaining({
        default_locale: "en",
        ai_attributes: [],
        locales: { en: { title: "T2", body: "B2" } },
      }),
    });
    await templates().remove("patched");
    for (const gone of [
      () => templates().get("patched"),
      () => templates().update("patched", {}, NOW),
      () => templates().remove("patched"),
    ])
      expect(await refusal(gone())).toMatchObject({ code: "not_found", status: 404 });
  });

  // docs/api.md "Admin resources": a PUT sets fields left out back to their defaults;
  // docs/templates.md: `default_locale` defaults to `en`.
  test("PUT without default_locale returns it to en", async () => {
    await templates().create(
      "reset",
      { default_locale: "de", locales: { en: { title: "T", body: "B" }, de: { title: "T", body: "B" } } },
      NOW,
    );
    const { view } = await templates().replace("reset", { locales: { en: { title: "T", body: "B" } } }, NOW);
    expect(view.default_locale).toBe("en");
  });
});

describe("previewTemplate", () => {
  test("renders the default locale with the preview event at now; empty data renders empty, never fails", async () => {
    expect(await previewTemplate(deps(), "welcome", {})).toEqual({
      locale: "en",
      channel: null,
      title: "Hello there<>",
      body: `Order  (preview evt_preview at ${NOW.toISOString()}): `,
      url: "https://shop.example/orders/",
      thread: "order-",
    });
  });

  test("a stored recipient's locale and attributes; an explicit locale wins; a channel's overrides apply", async () => {
    expect(await previewTemplate(deps(), "welcome", { recipient: "ann", data: { order_id: 7 } })).toEqual({
      locale: "de", // de-AT falls back to its language
      channel: null,
      title: "Hallo Ann",
      body: "Bestellung 7",
      url: null,
      thread: null,
    });
    expect(
      await previewTemplate(deps(), "welcome", {
        recipient: "ann",
        locale: "en",
        channel: "sms",
        data: { order_id: 7 },
      }),
    ).toEqual({
      locale: "en",
      channel: "sms",
      title: "Hello Ann<>",
      body: "SMS 7",
      url: null,
      thread: "order-7",
    });
  });

  test("an e-mail (smtp) channel escapes the body's values, not the title; another channel escapes nothing", async () => {
    const data = { order_id: 7, tag: "<b>" };
    clock = new Date("2024-02-01T08:00:00.000Z");
    const email = await previewTemplate(deps(), "welcome", { channel: "email", data });
    expect(email).toMatchObject({ title: "Hello there<<b>>" });
    expect(email.body).toBe("Order 7 (preview evt_preview at 2024-02-01T08:00:00.000Z): &lt;b&gt;");
    const plain = await previewTemplate(deps(), "welcome", { channel: "push", data });
    expect(plain.body).toBe("Order 7 (preview evt_preview at 2024-02-01T08:00:00.000Z): <b>");
  });

  test("refusals: unknown template 404, unknown recipient 422 at body.recipient, a render error 422 template_error", async () => {
    expect(await refusal(previewTemplate(deps(), "nope", {}))).toMatchObject({
      code: "not_found",
      status: 404,
    });
    const nobody = await refusal(previewTemplate(deps(), "welcome", { recipient: "nobody" }));
    expect(nobody).toMatchObject({ code: "validation", status: 422 });
    expect(nobody.errors).toEqual([
      { loc: ["body", "recipient"], msg: "no recipient 'nobody'", type: "value_error" },
    ]);
    // Compiles when saved; arithmetic on a missing value fails when rendered (docs/templates.md).
    await templates().create("adds", { locales: { en: { title: "T", body: "{{ data.n + 1 }}" } } }, NOW);
    expect((await previewTemplate(deps(), "adds", { data: { n: 41 } })).body).toBe("42");
    const failed = await refusal(previewTemplate(deps(), "adds", {}));
    expect(failed).toMatchObject({ code: "unprocessable", status: 422 });
    expect(failed.detail).toMatch(/^locales\.en\.body: /);
    expect(failed.errors).toEqual([{ loc: ["body"], msg: failed.detail, type: "template_error" }]);
    // A preview writes nothing.
    expect(await db.prisma.message.count()).toBe(0);
    expect(await db.prisma.event.count()).toBe(0);
  });
});
