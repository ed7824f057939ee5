import { renderTemplate } from "../render-template";
import type { TemplateDefinition } from "../template-types";

const template: TemplateDefinition = {
  key: "order-shipped",
  default_locale: "en",
  locales: {
    en: {
      title: "Order {{ data.order_id }} shipped",
      body: "Hi {{ recipient.name | default('there') }}, {{ data.count }} item(s) are on the way.",
      url: "https://shop.example/orders/{{ data.order_id }}",
      thread: "order-{{ data.order_id }}",
      channels: {
        sms: { body: "Order {{ data.order_id }} shipped: {{ data.html }}" },
        push: { title: "Shipped!", url: null },
        email: { body: "<p>{{ data.html }}</p> {{ recipient.unsubscribe_url }}" },
      },
    },
    de: { title: "Bestellung {{ data.order_id }} versandt", body: "Hallo {{ recipient.name }}!" },
  },
};

const context = {
  data: { order_id: "A-1", count: 2, html: "<b>&</b>" },
  recipient: { external_id: "u1", name: "Ann" },
  event: { name: "order.shipped" },
};

describe("renderTemplate", () => {
  it("renders every field in the chosen locale", () => {
    expect(renderTemplate({ template, locale: "en-GB", context })).toEqual({
      ok: true,
      locale: "en",
      channel: null,
      content: {
        title: "Order A-1 shipped",
        body: "Hi Ann, 2 item(s) are on the way.",
        url: "https://shop.example/orders/A-1",
        thread: "order-A-1",
      },
    });
  });

  it.each([
    ["de-AT", "de", "Bestellung A-1 versandt"],
    ["de", "de", "Bestellung A-1 versandt"],
    ["fr", "en", "Order A-1 shipped"],
    [null, "en", "Order A-1 shipped"],
  ])("locale %p -> %s", (locale, chosen, title) => {
    const result = renderTemplate({ template, locale, context });
    expect(result).toMatchObject({ ok: true, locale: chosen, content: { title } });
  });

  it("fails with `no usable locale` when neither the person's nor the default locale exists", () => {
    const only = { ...template, default_locale: "es" };
    expect(renderTemplate({ template: only, locale: "it", context })).toEqual({
      ok: false,
      detail: "no usable locale",
    });
  });

  it.each([
    [
      "sms",
      {
        title: "Order A-1 shipped",
        body: "Order A-1 shipped: <b>&</b>",
        url: "https://shop.example/orders/A-1",
        thread: "order-A-1",
      },
    ],
    [
      "push",
      { title: "Shipped!", body: "Hi Ann, 2 item(s) are on the way.", url: null, thread: "order-A-1" },
    ],
    [
      "webhook",
      {
        title: "Order A-1 shipped",
        body: "Hi Ann, 2 item(s) are on the way.",
        url: "https://shop.example/orders/A-1",
        thread: "order-A-1",
      },
    ],
  ])("per-channel overrides replace fields on %s", (channel, content) => {
    expect(renderTemplate({ template, locale: "en", channel, context })).toEqual({
      ok: true,
      locale: "en",
      channel,
      content,
    });
  });

  it("autoescapes only the body in HTML mode, and link placeholders survive it", () => {
    const result = renderTemplate({
      template,
      locale: "en",
      channel: "email",
      context: { ...context, data: { ...context.data, order_id: "<1>" } },
      html: true,
    });
    expect(result).toEqual({
      ok: true,
      locale: "en",
      channel: "email",
      content: {
        title: "Order <1> shipped",
        body: "<p>&lt;b&gt;&amp;&lt;/b&gt;</p> [[svc:unsubscribe_url]]",
        url: "https://shop.example/orders/<1>",
        thread: "order-<1>",
      },
    });
  });

  it("lets the caller set real links on the recipient", () => {
    const result = renderTemplate({
      template,
      locale: "en",
      channel: "email",
      context: { ...context, recipient: { unsubscribe_url: "https://x/u" } },
    });
    expect(result).toMatchObject({ ok: true, content: { body: "<p><b>&</b></p> https://x/u" } });
  });

  it("turns blank url and thread into null", () => {
    const blank: TemplateDefinition = {
      key: "t",
      locales: { en: { title: "t", body: "b", url: "{{ data.nothing }}", thread: "  " } },
    };
    expect(renderTemplate({ template: blank, context: {} })).toEqual({
      ok: true,
      locale: "en",
      channel: null,
      content: { title: "t", body: "b", url: null, thread: null },
    });
  });

  it.each([
    [
      { en: { title: "ok", body: "line 1\n{{ data.count | nosuch }}" } },
      null,
      "locales.en.body: line 2: unknown filter: nosuch",
    ],
    [
      { en: { title: "{{ nope() }}", body: "b" } },
      null,
      "locales.en.title: line 1: Unable to call `nope`, which is undefined or falsey",
    ],
    [
      { en: { title: "t", body: "b", channels: { sms: { body: "x\n\n{% if %}" } } } },
      "sms",
      "locales.en.channels.sms.body: line 3: unexpected token: %}",
    ],
  ])("reports render errors with field and line (%#)", (locales, channel, detail) => {
    const broken = { key: "t", default_locale: "en", locales } as TemplateDefinition;
    expect(renderTemplate({ template: broken, channel, context })).toEqual({ ok: false, detail });
  });

  it("does not let a template change the caller's data", () => {
    const data = { list: [1, 2] };
    const mutating: TemplateDefinition = {
      key: "t",
      locales: { en: { title: "{{ data.list.append(3) }}", body: "{{ data.list | length }}" } },
    };
    const result = renderTemplate({ template: mutating, context: { data } });
    expect(result).toMatchObject({ ok: true, content: { body: "3" } });
    expect(data.list).toEqual([1, 2]);
  });
});
