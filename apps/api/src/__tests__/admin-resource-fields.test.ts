import { startHarness, type Harness } from "./service-harness";

// Fields of categories, templates and rules: how they are stored and shown, and the exact 422
// `errors` for what the document refuses (shapes, bounds, unknown fields) and what the use cases
// refuse (periods, JSON Logic, template syntax, digest policy).

let h: Harness;
beforeAll(async () => {
  h = await startHarness("admin_fields");
});
afterAll(() => h?.close());

const PERIOD_PATTERN = '"^P(?!$)(\\d+W)?(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+S)?)?$"';
const rule = {
  event: "order.shipped",
  template: "order-shipped",
  category: "transactional",
  channels: ["email"],
};
const en = { title: "Hi", body: "Body" };

async function errorsOf(method: "post" | "put" | "patch", path: string, body: object) {
  const res = await h.as()[method](path).send(body);
  expect(res.status).toBe(422);
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  return res.body.errors as unknown[];
}

describe("categories", () => {
  it("stores caps and fatigue as seconds and shows them as ISO 8601 periods", async () => {
    const res = await h
      .as()
      .post("/v1/categories")
      .send({
        key: "digest-mail",
        frequency_caps: [
          { period: 3600, limit: 2 },
          { period: "P1W", limit: 10 },
        ],
        fatigue: { after: 3, pause: "P2D" },
      });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      frequency_caps: [
        { period: "PT1H", limit: 2 },
        { period: "P7D", limit: 10 },
      ],
      fatigue: { after: 3, pause: "P2D" },
    });
    const cleared = await h
      .as()
      .patch("/v1/categories/digest-mail")
      .send({ fatigue: null, frequency_caps: [] });
    expect(cleared.body).toMatchObject({ frequency_caps: [], fatigue: null });
  });

  it.each(["transactional", "marketing"])(
    "the built-in %s cannot be deleted (409) and stays",
    async (key) => {
      const res = await h.as().delete(`/v1/categories/${key}`);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({
        title: "Conflict",
        detail: `'${key}' is a built-in category and cannot be deleted`,
      });
      expect((await h.as().get(`/v1/categories/${key}`)).body.builtin).toBe(true);
    },
  );

  it.each([
    [
      "a month period (P1M)",
      { key: "c1", frequency_caps: [{ period: "P1M", limit: 2 }] },
      [
        {
          loc: ["body", "frequency_caps", 0, "period"],
          msg: `must match pattern ${PERIOD_PATTERN}`,
          type: "pattern",
        },
      ],
    ],
    [
      "a zero fatigue pause",
      { key: "c2", fatigue: { after: 2, pause: "PT0S" } },
      [
        {
          loc: ["body", "fatigue", "pause"],
          msg: "expected an ISO 8601 duration or a positive number of seconds",
          type: "value_error",
        },
      ],
    ],
    [
      "an unknown field",
      { key: "c3", colour: "red" },
      [{ loc: ["body", "colour"], msg: "unknown field", type: "additional_properties" }],
    ],
    [
      "a key outside the pattern and a cap without limit",
      { key: "-bad", frequency_caps: [{ period: "P1D" }] },
      [
        {
          loc: ["body", "key"],
          msg: 'must match pattern "^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"',
          type: "pattern",
        },
        { loc: ["body", "frequency_caps", 0, "limit"], msg: "is required", type: "missing" },
      ],
    ],
  ])("refuses %s (422)", async (_case, body, errors) => {
    expect(await errorsOf("post", "/v1/categories", body)).toEqual(errors);
  });
});

describe("templates", () => {
  const locales = {
    en: {
      title: "Order {{ data.id }}",
      body: "Shipped",
      url: "https://shop.example/{{ data.id }}",
      channels: { sms: { body: "Shipped {{ data.id }}", url: null } },
    },
    "de-AT": { title: "Bestellung", body: "Versandt" },
  };

  it("keeps locales with their channel overrides as given", async () => {
    const res = await h.as().post("/v1/templates").send({ key: "shipped", default_locale: "de-AT", locales });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ default_locale: "de-AT", locales, ai_attributes: [] });
  });

  it("a syntax error is 422 naming the field and the line", async () => {
    const res = await h
      .as()
      .post("/v1/templates")
      .send({ key: "broken", locales: { en: { title: "Hi", body: "Hello\n{{ data.name }\n" } } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toBe("body.locales.en.body: line 2: expected variable end");
    expect(res.body.errors).toEqual([
      {
        loc: ["body", "locales", "en", "body"],
        msg: "line 2: expected variable end",
        type: "template_error",
      },
    ]);
  });

  it.each([
    [
      "an unknown filter in a channel override",
      { key: "t1", locales: { en: { ...en, channels: { push: { title: "{{ data.x | bogus }}" } } } } },
      [
        {
          loc: ["body", "locales", "en", "channels", "push", "title"],
          msg: "line 1: unknown filter: bogus",
          type: "template_error",
        },
      ],
    ],
    [
      "a default_locale missing from locales",
      { key: "t2", default_locale: "fr", locales: { en } },
      [{ loc: ["body", "default_locale"], msg: "no locale 'fr' in locales", type: "template_error" }],
    ],
    [
      "a locale without body, a bad locale tag and an unknown field",
      { key: "t3", locales: { en: { title: "Hi" }, english: en }, colour: "red" },
      [
        { loc: ["body", "colour"], msg: "unknown field", type: "additional_properties" },
        { loc: ["body", "locales", "english"], msg: "unknown field", type: "additional_properties" },
        { loc: ["body", "locales", "en", "body"], msg: "is required", type: "missing" },
      ],
    ],
    [
      "no locales at all",
      { key: "t4", locales: {} },
      [{ loc: ["body", "locales"], msg: "must NOT have fewer than 1 properties", type: "min_properties" }],
    ],
  ])("refuses %s (422)", async (_case, body, errors) => {
    expect(await errorsOf("post", "/v1/templates", body)).toEqual(errors);
  });
});

describe("rules", () => {
  it("shows every field as stored: periods as ISO 8601, digest with its defaults", async () => {
    const res = await h
      .as()
      .post("/v1/rules")
      .send({
        ...rule,
        key: "all-fields",
        name: "Everything",
        event: "order.*",
        channels: ["push", "email", "push"],
        importance: "high",
        digest: {
          deliver_at: "09:00",
          days: ["mon", "fri"],
          key: "{{ data.project }}",
          send_after: 5,
          max_items: 20,
        },
        condition: { "==": [{ var: "data.kind" }, "express"] },
        delay: 600,
        cooldown_seconds: 0,
        expires_in: "P1D",
        rollout_percent: 0,
        priority: -5,
        stop_processing: true,
        enabled: false,
      });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      key: "all-fields",
      name: "Everything",
      event: "order.*",
      template: "order-shipped",
      category: "transactional",
      channels: ["push", "email"],
      importance: "high",
      digest: {
        deliver_at: "09:00",
        days: ["mon", "fri"],
        key: "{{ data.project }}",
        send_after: 5,
        max_items: 20,
        summarize: false,
        summary_fields: [],
      },
      condition: { "==": [{ var: "data.kind" }, "express"] },
      delay: "PT10M",
      cooldown_seconds: 0,
      expires_in: "P1D",
      rollout_percent: 0,
      priority: -5,
      stop_processing: true,
      enabled: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    const windowed = await h
      .as()
      .patch("/v1/rules/all-fields")
      .send({ digest: { window: 3600 }, delay: null, condition: true });
    expect(windowed.body).toMatchObject({
      digest: { window: "PT1H", max_items: 50, summarize: false, summary_fields: [] },
      delay: null,
      condition: true,
    });
    expect((await h.as().patch("/v1/rules/all-fields").send({ digest: null })).body.digest).toBeNull();
  });

  it.each([
    [
      "an unknown JSON Logic operator",
      { condition: { and: [true, { nope: [1] }] } },
      [{ loc: ["body", "condition", "and", 1, "nope"], msg: "unknown operator: nope", type: "value_error" }],
    ],
    [
      "a digest with both window and deliver_at",
      { digest: { window: "PT1H", deliver_at: "09:00" } },
      [{ loc: ["body", "digest"], msg: "set exactly one of window and deliver_at", type: "value_error" }],
    ],
    [
      "a digest with neither, days without deliver_at and a broken key",
      { digest: { days: ["mon"], key: "{{ data.x" } },
      [
        { loc: ["body", "digest"], msg: "set exactly one of window and deliver_at", type: "value_error" },
        { loc: ["body", "digest", "days"], msg: "days go with deliver_at", type: "value_error" },
        { loc: ["body", "digest", "key"], msg: "line 1: expected variable end", type: "template_error" },
      ],
    ],
    [
      "a digest window over 7 days",
      { digest: { window: "P8D" } },
      [
        {
          loc: ["body", "digest", "window"],
          msg: "must be a period from 1 second to 7 days",
          type: "value_error",
        },
      ],
    ],
    [
      "summarize without summary_fields while AI is off",
      { digest: { window: 60, summarize: true } },
      [
        { loc: ["body", "digest", "summary_fields"], msg: "required with summarize", type: "missing" },
        {
          loc: ["body", "digest", "summarize"],
          msg: "smart mode needs ai.enabled in the configuration",
          type: "value_error",
        },
      ],
    ],
    [
      "an event pattern with a space",
      { event: "order shipped" },
      [
        {
          loc: ["body", "event"],
          msg: "event pattern must not contain whitespace or control characters",
          type: "value_error",
        },
      ],
    ],
    [
      "a month delay (P1M)",
      { delay: "P1M" },
      [{ loc: ["body", "delay"], msg: `must match pattern ${PERIOD_PATTERN}`, type: "pattern" }],
    ],
    [
      "out-of-range numbers, a bad channel, an unknown importance and an unknown field",
      {
        rollout_percent: 101,
        priority: 1.5,
        cooldown_seconds: -1,
        channels: ["e mail"],
        importance: "urgent",
        colour: "red",
      },
      [
        { loc: ["body", "colour"], msg: "unknown field", type: "additional_properties" },
        {
          loc: ["body", "channels", 0],
          msg: 'must match pattern "^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$"',
          type: "pattern",
        },
        {
          loc: ["body", "importance"],
          msg: "must be equal to one of the allowed values: low, normal, high, critical",
          type: "enum",
        },
        { loc: ["body", "cooldown_seconds"], msg: "must be >= 0", type: "minimum" },
        { loc: ["body", "rollout_percent"], msg: "must be <= 100", type: "maximum" },
        { loc: ["body", "priority"], msg: "must be integer", type: "type" },
      ],
    ],
    [
      "a digest with an unknown field and a bad day",
      { digest: { window: 60, every: 2, days: ["monday"] } },
      [
        { loc: ["body", "digest", "every"], msg: "unknown field", type: "additional_properties" },
        {
          loc: ["body", "digest", "days", 0],
          msg: "must be equal to one of the allowed values: mon, tue, wed, thu, fri, sat, sun",
          type: "enum",
        },
      ],
    ],
  ])("refuses %s (422)", async (_case, fields, errors) => {
    expect(await errorsOf("post", "/v1/rules", { key: "refused", ...rule, ...fields })).toEqual(errors);
    expect((await h.as().get("/v1/rules/refused")).status).toBe(404);
  });

  it("POST without the required fields lists each one", async () => {
    expect(await errorsOf("post", "/v1/rules", { key: "bare" })).toEqual(
      ["event", "template", "category", "channels"].map((field) => ({
        loc: ["body", field],
        msg: "is required",
        type: "missing",
      })),
    );
  });
});
