import { startHarness, type Harness } from "./service-harness";

// POST /v1/templates/{key}/preview: renders as a message would be (locale fallback, channel
// overrides, the three variables, e-mail escaping) and answers a render failure with 422.

let h: Harness;

const welcome = {
  key: "welcome",
  default_locale: "en",
  locales: {
    en: {
      title: "Hello {{ recipient.attributes.first_name | default('there') }}<{{ data.tag }}>",
      body: "Order {{ data.order_id }} ({{ event.name }}): {{ data.tag }}",
      url: "https://shop.example/orders/{{ data.order_id }}",
      thread: "order-{{ data.order_id }}",
      channels: { sms: { body: "SMS {{ data.order_id }}", url: null } },
    },
    de: { title: "Hallo {{ recipient.attributes.first_name }}", body: "Bestellung {{ data.order_id }}" },
  },
};

beforeAll(async () => {
  h = await startHarness("template_preview", {
    config: { channels: { email: { provider: "smtp" }, sms: { provider: "console" } } },
  });
  await h.as().post("/v1/templates").send(welcome).expect(201);
  await h
    .as()
    .post("/v1/templates")
    .send({ key: "shouty", locales: { en: { title: "Hi", body: "{{ data.name.shout() }}" } } })
    .expect(201);
  await h
    .as()
    .put("/v1/recipients/ann")
    .send({ locale: "de-AT", attributes: { first_name: "Ann" } })
    .expect(201);
});
afterAll(() => h?.close());

const preview = (key: string, body: object) => h.as().post(`/v1/templates/${key}/preview`).send(body);

describe("template preview", () => {
  it.each([
    [
      "the default locale with empty data",
      {},
      {
        locale: "en",
        channel: null,
        title: "Hello there<>",
        body: "Order  (preview): ",
        url: "https://shop.example/orders/",
        thread: "order-",
      },
    ],
    [
      "a regional locale falling back to its language (de-AT -> de)",
      { locale: "de-AT", data: { order_id: 7 } },
      { locale: "de", channel: null, title: "Hallo ", body: "Bestellung 7", url: null, thread: null },
    ],
    [
      "a channel override (sms body, url removed; title and thread inherited)",
      { channel: "sms", data: { order_id: 7, tag: "x" } },
      { locale: "en", channel: "sms", title: "Hello there<x>", body: "SMS 7", url: null, thread: "order-7" },
    ],
    [
      "a stored recipient: its locale and attributes",
      { recipient: "ann", data: { order_id: 7 } },
      { locale: "de", channel: null, title: "Hallo Ann", body: "Bestellung 7", url: null, thread: null },
    ],
    [
      "an explicit locale over the recipient's",
      { recipient: "ann", locale: "en", data: { order_id: 7 } },
      {
        locale: "en",
        channel: null,
        title: "Hello Ann<>",
        body: "Order 7 (preview): ",
        url: "https://shop.example/orders/7",
        thread: "order-7",
      },
    ],
    [
      "an e-mail channel: the body is HTML-escaped, the title is not",
      { channel: "email", data: { order_id: 7, tag: "<b>" } },
      {
        locale: "en",
        channel: "email",
        title: "Hello there<<b>>",
        body: "Order 7 (preview): &lt;b&gt;",
        url: "https://shop.example/orders/7",
        thread: "order-7",
      },
    ],
  ])("renders %s", async (_case, body, expected) => {
    const res = await preview("welcome", body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expected);
  });

  it("a render error is 422 with the detail", async () => {
    const res = await preview("shouty", { data: { name: "ann" } });
    expect(res.status).toBe(422);
    const detail =
      'locales.en.body: line 1: Unable to call `data["name"]["shout"]`, which is undefined or falsey';
    expect(res.body).toMatchObject({ title: "Unprocessable content", detail });
    expect(res.body.errors).toEqual([{ loc: ["body"], msg: detail, type: "template_error" }]);
  });

  it.each([
    ["an unknown template", "nope", {}, 404, "no template 'nope'"],
    ["an unknown recipient", "welcome", { recipient: "nobody" }, 422, "recipient: no recipient 'nobody'"],
    [
      "an unknown field",
      "welcome",
      { datum: {} },
      422,
      "Request validation failed: body.datum: unknown field",
    ],
    [
      "a bad locale tag",
      "welcome",
      { locale: "de_AT" },
      422,
      'Request validation failed: body.locale: must match pattern "^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$"',
    ],
  ])("refuses %s", async (_case, key, body, status, detail) => {
    const res = await preview(key, body);
    expect(res.status).toBe(status);
    expect(res.body.detail).toBe(detail);
  });

  it("needs the admin scope", async () => {
    const key = await h.keyWith(["recipients:read"]);
    expect((await h.as(key).post("/v1/templates/welcome/preview").send({})).status).toBe(403);
  });
});
