import { applyRetention, inboxStore } from "@svc/engine";
import { waitFor } from "@svc/testkit";
import { INBOX_TEMPLATE, startInboxHarness, type InboxHarness } from "./inbox-fixtures";

// The in-app inbox over HTTP against the real API, Postgres, Redis and workers (docs/inbox.md):
// tokens, items from rules and direct sends, the feed and its counts through every action, other
// people's items, engagement and fatigue, CORS, /inbox.js, and items going with their messages.

let h: InboxHarness;
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
const PAGE_ORIGIN = "https://app.example.com";

beforeAll(async () => {
  h = await startInboxHarness("inbox_api", {
    now,
    config: { inbox: { allowed_origins: [PAGE_ORIGIN], token_ttl_seconds: 3600 } },
  });
}, 60_000);
afterAll(() => h?.close());
afterEach(() => (offsetMs = 0));

const counts = async (token: string) => (await h.feed(token).get("/v1/inbox/counts").expect(200)).body;
const statusOf = async (id: string) => (await h.prisma.message.findUniqueOrThrow({ where: { id } })).status;

describe("tokens", () => {
  beforeAll(async () => {
    await h.person("tok-ada", { locale: "en" });
  });

  it("are minted for a person with recipients:write: signed, expiring after inbox.token_ttl_seconds", async () => {
    const before = Date.now();
    const res = await h.as().post("/v1/recipients/tok-ada/inbox-token").expect(200);
    expect(Object.keys(res.body).sort()).toEqual(["expires_at", "token"]);
    const expiresAt = Date.parse(res.body.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 3600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000);
    expect(await counts(res.body.token)).toEqual({ unread: 0, unseen: 0, total: 0 });
    // Not stored: no table holds it.
    const person = await h.prisma.recipient.findUniqueOrThrow({ where: { external_id: "tok-ada" } });
    expect(
      JSON.stringify(await h.prisma.preferenceToken.findMany({ where: { recipient_id: person.id } })),
    ).not.toContain(res.body.token.split(".")[2]);
  });

  it("are refused to agent keys (403) and for unknown people (404)", async () => {
    const agentKey = await h.keyWith(["recipients:write"], "helper-bot");
    const refused = await h.as(agentKey).post("/v1/recipients/tok-ada/inbox-token").expect(403);
    expect(refused.body.detail).toMatch(/agent keys may not act for people/);
    const missing = await h.as().post("/v1/recipients/nobody-here/inbox-token").expect(404);
    expect(missing.body.detail).toBe("no recipient 'nobody-here'");
  });

  it("stop working when they expire", async () => {
    const token = await h.mint("tok-ada");
    offsetMs = 3600_000 + 1_000;
    const res = await h.feed(token).get("/v1/inbox/counts").expect(401);
    expect(res.body.detail).toBe("inbox token expired: mint a new one");
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
  });

  it("are revoked when the person's preference token is rotated", async () => {
    const token = await h.mint("tok-ada");
    await counts(token);
    await h.as().post("/v1/recipients/tok-ada/preference-token").expect(201);
    const res = await h.feed(token).get("/v1/inbox/counts").expect(401);
    expect(res.body.detail).toMatch(/invalid inbox token/);
    expect(await counts(await h.mint("tok-ada"))).toEqual({ unread: 0, unseen: 0, total: 0 });
  });

  it("are revoked when the person is erased", async () => {
    await h.person("tok-erased");
    const token = await h.mint("tok-erased");
    await counts(token);
    await h.as().delete("/v1/recipients/tok-erased").expect(204);
    expect((await h.feed(token).get("/v1/inbox/items").expect(401)).body.detail).toMatch(
      /invalid inbox token/,
    );
  });

  it("are the only key to the feed: an API key is refused with 401", async () => {
    const res = await h.as().get("/v1/inbox/items").expect(401);
    expect(res.body.detail).toMatch(/API keys are not accepted here/);
  });

  it("cannot be forged for another person or a later expiry", async () => {
    await h.person("tok-bob");
    const ada = await h.mint("tok-ada");
    const bob = (await h.prisma.recipient.findUniqueOrThrow({ where: { external_id: "tok-bob" } })).id;
    const [, exp, mac] = ada.split(".") as [string, string, string];
    await h.feed(`${bob}.${exp}.${mac}`).get("/v1/inbox/counts").expect(401);
    await h
      .feed(`${ada.split(".")[0]}.${Number(exp) + 9999}.${mac}`)
      .get("/v1/inbox/counts")
      .expect(401);
  });
});

describe("items", () => {
  beforeAll(async () => {
    // Neither has any address: every person is reachable on an inbox channel.
    await h.person("it-grete", { locale: "de-AT" });
    await h.person("it-sam", { locale: "en" });
    await h.person("it-muted", { locale: "en" });
    await h
      .as()
      .put("/v1/recipients/it-muted/preferences")
      .send({ muted_channels: ["in_app"] })
      .expect(200);
  });

  it("come from direct sends, rendered for the channel in the person's locale, and the message is sent", async () => {
    const id = await h.send("it-sam", { order: "B-7" });
    const itemId = await h.itemOf(id);
    await waitFor(async () => (await statusOf(id)) === "sent", { what: "sent" });
    const token = await h.mint("it-sam");
    const res = await h.feed(token).get("/v1/inbox/items").expect(200);
    expect(res.body).toEqual({
      items: [
        {
          id: itemId,
          message_id: id,
          title: "Order B-7 shipped",
          body: "Parcel B-7 is on its way.",
          url: "https://shop.example/orders/B-7",
          category: "transactional",
          importance: "normal",
          created_at: expect.any(String),
          seen_at: null,
          read_at: null,
          archived_at: null,
        },
      ],
      next_cursor: null,
    });
    expect(itemId).toMatch(/^itm_[0-9A-Z]{26}$/);
    // Handed to a client: the message is delivered now.
    expect(await statusOf(id)).toBe("delivered");
    const message = (await h.as().get(`/v1/messages/${id}`).expect(200)).body;
    expect(message).toMatchObject({ status: "delivered", channel: "in_app" });
    expect(message.delivered_at).not.toBeNull();
  });

  it("come from rules, in German for a person in de-AT", async () => {
    await h
      .as()
      .put("/v1/rules/shipped-inbox")
      .send({ event: "order.shipped", template: "shipped", category: "transactional", channels: ["in_app"] })
      .expect(201);
    const event = await h
      .as()
      .post("/v1/events")
      .send({ name: "order.shipped", recipient: "it-grete", data: { order: "C-3" } })
      .expect(202);
    const messageId = await waitFor(
      async () => (await h.prisma.message.findFirst({ where: { event_id: event.body.id } }))?.id,
      { timeoutMs: 10_000, what: "the rule's message" },
    );
    await h.itemOf(messageId);
    const items = (
      await h
        .feed(await h.mint("it-grete"))
        .get("/v1/inbox/items")
        .expect(200)
    ).body.items;
    expect(items).toEqual([
      expect.objectContaining({
        message_id: messageId,
        title: "Bestellung C-3 versandt",
        body: "Paket C-3 ist unterwegs.",
        url: "https://shop.example/de/orders/C-3",
      }),
    ]);
  });

  it("are not made for a person who muted the channel", async () => {
    const res = await h
      .as()
      .post("/v1/messages")
      .send({ recipient: "it-muted", template: "shipped", category: "transactional", channels: ["in_app"] })
      .expect(202);
    expect(res.body).toMatchObject({ status: "suppressed", status_reason: "no_reachable_channel" });
  });

  it("keep link placeholders stored and show the person's own links in the feed", async () => {
    await h
      .as()
      .put("/v1/templates/with-links")
      .send({
        locales: {
          en: {
            title: "Settings",
            body: "Change them here: {{ recipient.preferences_url }}",
            url: "{{ recipient.preferences_url }}",
          },
        },
      })
      .expect(201);
    const res = await h
      .as()
      .post("/v1/messages")
      .send({ recipient: "it-sam", template: "with-links", category: "transactional", channels: ["in_app"] })
      .expect(202);
    const itemId = await h.itemOf(res.body.id);
    const stored = await h.prisma.inboxItem.findUniqueOrThrow({ where: { id: itemId } });
    expect(stored).toMatchObject({ body: "Change them here: [[svc:preferences_url]]", has_links: true });
    const shown = (
      await h
        .feed(await h.mint("it-sam"))
        .get("/v1/inbox/items")
        .expect(200)
    ).body.items[0];
    expect(shown.body).toMatch(new RegExp(`^Change them here: ${h.base}/preferences/[A-Za-z0-9_-]{43}$`));
    expect(shown.url).toBe(shown.body.slice("Change them here: ".length));
    // The link opens the person's own preference page.
    await h.as().get(new URL(shown.url).pathname.replace("/preferences/", "/v1/preferences/")).expect(200);
  });

  it("are delivered once: a repeated delivery finds the item", async () => {
    const id = await h.send("it-sam", { order: "R-1" });
    await h.itemOf(id);
    const store = inboxStore({ prisma: h.prisma, queues: h.queues, now });
    const request = { messageId: id, channel: "in_app" } as Parameters<typeof store.deliver>[0];
    // Twice in one batch, and again: one item.
    expect(await Promise.all([store.deliver(request), store.deliver(request)])).toEqual([
      { ok: true },
      { ok: true },
    ]);
    expect(await store.deliver(request)).toEqual({ ok: true });
    expect(await h.prisma.inboxItem.count({ where: { message_id: id } })).toBe(1);
  });
});

describe("the feed", () => {
  let token: string;
  let ids: string[]; // newest first
  let other: string;

  beforeAll(async () => {
    await h.person("feed-kim");
    await h.person("feed-other");
    const messages: string[] = [];
    for (const order of ["F-1", "F-2", "F-3"]) messages.push(await h.send("feed-kim", { order }));
    ids = [];
    for (const m of messages) ids.unshift(await h.itemOf(m));
    other = await h.itemOf(await h.send("feed-other"));
    token = await h.mint("feed-kim");
  });

  const act = (id: string, action: string) => h.feed(token).post(`/v1/inbox/items/${id}/${action}`);
  const list = async (query = "") =>
    (await h.feed(token).get(`/v1/inbox/items${query}`).expect(200)).body as {
      items: { id: string }[];
      next_cursor: string | null;
    };

  it("lists newest first in pages", async () => {
    const first = await list("?limit=2");
    expect(first.items.map((i) => i.id)).toEqual(ids.slice(0, 2));
    const second = await list(`?limit=2&cursor=${first.next_cursor}`);
    expect(second).toEqual({ items: [expect.objectContaining({ id: ids[2] })], next_cursor: null });
  });

  it("counts through every action", async () => {
    const [a, b, c] = ids as [string, string, string];
    expect(await counts(token)).toEqual({ unread: 3, unseen: 3, total: 3 });

    const seen = (await act(a, "seen").expect(200)).body;
    expect(seen).toMatchObject({ id: a, seen_at: expect.any(String), read_at: null });
    expect(await counts(token)).toEqual({ unread: 3, unseen: 2, total: 3 });

    const read = (await act(b, "read").expect(200)).body;
    expect(read.read_at).not.toBeNull();
    expect(read.seen_at).toBe(read.read_at);
    expect(await counts(token)).toEqual({ unread: 2, unseen: 1, total: 3 });
    // Again: nothing changes, the first time stays.
    expect((await act(b, "read").expect(200)).body.read_at).toBe(read.read_at);

    expect((await act(b, "unread").expect(200)).body).toMatchObject({ read_at: null, seen_at: read.seen_at });
    expect(await counts(token)).toEqual({ unread: 3, unseen: 1, total: 3 });

    expect((await act(c, "archive").expect(200)).body.archived_at).not.toBeNull();
    expect(await counts(token)).toEqual({ unread: 2, unseen: 0, total: 2 });
    expect((await list()).items.map((i) => i.id)).toEqual([a, b]);
    expect((await list("?filter=archived")).items.map((i) => i.id)).toEqual([c]);
    expect((await list("?filter=unread")).items.map((i) => i.id)).toEqual([a, b]);
    expect((await list("?filter=unseen")).items.map((i) => i.id)).toEqual([]);

    expect((await act(c, "unarchive").expect(200)).body.archived_at).toBeNull();
    expect(await counts(token)).toEqual({ unread: 3, unseen: 1, total: 3 });
    expect((await list("?filter=unseen")).items.map((i) => i.id)).toEqual([c]);

    expect((await h.feed(token).post("/v1/inbox/seen-all").expect(200)).body).toEqual({
      unread: 3,
      unseen: 0,
      total: 3,
    });
    expect((await h.feed(token).post("/v1/inbox/read-all").expect(200)).body).toEqual({
      unread: 0,
      unseen: 0,
      total: 3,
    });
    expect((await list("?filter=unread")).items).toEqual([]);
  });

  it("answers 404 for another person's item, and never lists it", async () => {
    for (const action of ["seen", "read", "unread", "archive", "unarchive", "click"]) {
      const res = await act(other, action).expect(404);
      expect(res.body.detail).toBe(`no inbox item '${other}'`);
    }
    expect((await list()).items.map((i) => i.id)).not.toContain(other);
    const untouched = await h.prisma.inboxItem.findUniqueOrThrow({ where: { id: other } });
    expect(untouched).toMatchObject({ seen_at: null, read_at: null, archived_at: null });
  });

  it("refuses bad input with problem details, never a 500", async () => {
    const bad = async (path: string, status: number, method: "get" | "post" = "get") => {
      const res = await h.feed(token)[method](path);
      expect(res.status).toBe(status);
      expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
      return res.body;
    };
    expect((await bad("/v1/inbox/items?filter=everything", 422)).errors[0].loc).toEqual(["query", "filter"]);
    await bad("/v1/inbox/items?limit=0", 422);
    await bad("/v1/inbox/items?limit=501", 422);
    expect((await bad("/v1/inbox/items?cursor=not-a-cursor", 422)).detail).toMatch(/cursor/);
    await bad(`/v1/inbox/items?cursor=${"x".repeat(600)}`, 422);
    await bad("/v1/inbox/items?token=abc", 422);
    await bad("/v1/inbox/items/itm_NOPE/read", 404, "post");
    await bad("/v1/inbox/items/itm-bad!/read", 422, "post");
    await bad("/v1/inbox/items/x/explode", 404, "post");
    const lastEventId = await h.feed(token).get("/v1/inbox/stream").set("Last-Event-ID", "-5");
    expect(lastEventId.status).toBe(422);
    expect(lastEventId.body.errors).toEqual([
      { loc: ["header", "Last-Event-ID"], msg: "not an event id this stream sent", type: "value_error" },
    ]);
  });
});

describe("engagement", () => {
  beforeAll(async () => {
    await h.person("eng-lou");
    await h
      .as()
      .put("/v1/categories/digest")
      .send({ description: "Weekly news", respect_quiet_hours: false, fatigue: { after: 2, pause: "P1D" } })
      .expect(201);
  });

  it("read records opened; a click records opened and clicked; read-all records nothing", async () => {
    const token = await h.mint("eng-lou");
    const [m1, m2, m3] = [await h.send("eng-lou"), await h.send("eng-lou"), await h.send("eng-lou")];
    const [i1, i2] = [await h.itemOf(m1!), await h.itemOf(m2!), await h.itemOf(m3!)];
    await h.feed(token).post(`/v1/inbox/items/${i1}/read`).expect(200);
    await h.feed(token).post(`/v1/inbox/items/${i2}/click`).expect(200);
    await h.feed(token).post("/v1/inbox/read-all").expect(200);
    const engagement = async (id: string) =>
      (await h.prisma.engagement.findMany({ where: { message_id: id }, orderBy: { type: "asc" } })).map(
        (e) => [e.type, e.source],
      );
    await waitFor(async () => (await statusOf(m3!)) !== "sending" && (await statusOf(m3!)) !== "queued");
    expect(await engagement(m1!)).toEqual([["opened", "inbox"]]);
    expect(await engagement(m2!)).toEqual([
      ["opened", "inbox"],
      ["clicked", "inbox"],
    ]);
    expect(await engagement(m3!)).toEqual([]);
    const shown = (await h.as().get(`/v1/messages/${m2}`).expect(200)).body.engagement;
    expect(shown.opened_at).not.toBeNull();
    expect(shown.clicked_at).not.toBeNull();
  });

  it("feeds fatigue: ignored items pause the category, reading one ends the pause", async () => {
    await h.person("eng-fay");
    const token = await h.mint("eng-fay");
    const send = async () =>
      (
        await h
          .as()
          .post("/v1/messages")
          .send({ recipient: "eng-fay", template: "shipped", category: "digest", channels: ["in_app"] })
          .expect(202)
      ).body as { id: string; status: string; status_reason: string | null };
    const first = await send();
    const second = await send();
    expect([first.status, second.status]).toEqual(["queued", "queued"]);
    expect(await send()).toMatchObject({ status: "suppressed", status_reason: "fatigue" });
    await h
      .feed(token)
      .post(`/v1/inbox/items/${await h.itemOf(first.id)}/read`)
      .expect(200);
    expect((await send()).status).toBe("queued");
  });
});

describe("origins", () => {
  it("CORS only for inbox.allowed_origins, only on the inbox and /inbox.js", async () => {
    const token = await h.mint("tok-ada");
    const allowed = await h.feed(token).get("/v1/inbox/counts").set("Origin", PAGE_ORIGIN).expect(200);
    expect(allowed.headers["access-control-allow-origin"]).toBe(PAGE_ORIGIN);
    expect(allowed.headers.vary).toMatch(/Origin/);
    const preflight = await h
      .feed(token)
      .options("/v1/inbox/items/itm_X/click")
      .set("Origin", PAGE_ORIGIN)
      .set("Access-Control-Request-Method", "POST")
      .set("Access-Control-Request-Headers", "authorization")
      .expect(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe(PAGE_ORIGIN);
    expect(preflight.headers["access-control-allow-headers"]).toMatch(/Authorization/);
    const stranger = await h
      .feed(token)
      .get("/v1/inbox/counts")
      .set("Origin", "https://evil.example")
      .expect(200);
    expect(stranger.headers["access-control-allow-origin"]).toBeUndefined();
    const elsewhere = await h.as().get("/v1/messages").set("Origin", PAGE_ORIGIN).expect(200);
    expect(elsewhere.headers["access-control-allow-origin"]).toBeUndefined();
    const script = await h.as().get("/inbox.js").set("Origin", PAGE_ORIGIN).expect(200);
    expect(script.headers["access-control-allow-origin"]).toBe(PAGE_ORIGIN);
  });

  it("serves /inbox.js as a cacheable JavaScript module", async () => {
    const res = await h.as().get("/inbox.js").expect(200);
    expect(res.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("public, max-age=300, must-revalidate");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.text).toContain("svc-inbox");
    await h.as().get("/inbox.js").set("If-None-Match", res.headers.etag!).expect(304);
  });
});

describe("items go with their messages", () => {
  it("on erasure", async () => {
    await h.person("gone-eve");
    const itemId = await h.itemOf(await h.send("gone-eve"));
    await h.as().delete("/v1/recipients/gone-eve").expect(204);
    expect(await h.prisma.inboxItem.findUnique({ where: { id: itemId } })).toBeNull();
  });

  it("on retention", async () => {
    await h.person("old-ola");
    const id = await h.send("old-ola");
    const itemId = await h.itemOf(id);
    await waitFor(async () => (await statusOf(id)) === "sent");
    const later = new Date(Date.now() + 3 * 86_400_000);
    const config = { retention: { ...h.config.retention, messages_days: 1 } };
    await applyRetention({ prisma: h.prisma, config }, later);
    expect(await h.prisma.message.findUnique({ where: { id } })).toBeNull();
    expect(await h.prisma.inboxItem.findUnique({ where: { id: itemId } })).toBeNull();
  });
});

it("keeps the template's locales in this file in step with the fixture", () => {
  expect(Object.keys(INBOX_TEMPLATE.locales)).toEqual(["en", "de"]);
});
