import request from "supertest";
import type { Harness } from "./service-harness";
import {
  linksOf,
  makeCategory,
  makeMessage,
  makePerson,
  startRightsHarness,
  tokenOfUrl,
} from "./recipient-rights-fixtures";

// Hosted preference pages and RFC 8058 one-click unsubscribe, over HTTP without a browser.

const UA = "MailProvider-OneClick/1.0";
let h: Harness;

beforeAll(async () => {
  h = await startRightsHarness("recipient_hosted_pages", {
    config: {
      api: { public_url: "https://prefs.example.com" },
      channels: { email: { provider: "console" }, sms: { provider: "console" } },
    },
  });
  await makeCategory(h, "news", { description: "Product news" });
}, 60_000);
afterAll(() => h.close());

async function personWithMessage(externalId: string, category = "news", locale?: string) {
  const person = await makePerson(h, externalId, locale ? { locale } : {});
  const message = await makeMessage(h, person, { category });
  const links = await linksOf(h, message);
  return {
    person,
    message,
    unsubscribe: tokenOfUrl(links.unsubscribe_url!),
    preferences: tokenOfUrl(links.preferences_url!),
  };
}
const unsubscribed = async (id: string) =>
  (await h.prisma.recipient.findUniqueOrThrow({ where: { id } })).unsubscribed_categories;
const ledger = (id: string) =>
  h.prisma.consentEntry.findMany({ where: { recipient_id: id }, orderBy: { created_at: "asc" } });

describe("one-click unsubscribe (RFC 8058)", () => {
  it("the exact RFC 8058 request leaves the message's category, answers 200 plain, ledger one_click", async () => {
    const { person, message, unsubscribe } = await personWithMessage("oc-1");
    const res = await request(h.app)
      .post(`/preferences/${unsubscribe}/unsubscribe`)
      .set("Content-Type", "application/x-www-form-urlencoded")
      .set("User-Agent", UA)
      .send("List-Unsubscribe=One-Click")
      .expect(200);
    expect(res.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(res.text).toBe("Unsubscribed from news\n");
    expect(await unsubscribed(person.id)).toEqual(["news"]);
    const entries = await ledger(person.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      source: "one_click",
      changes: { unsubscribed_categories: { added: ["news"], removed: [] } },
      provenance: {
        method: "one_click",
        ip: expect.stringMatching(/127\.0\.0\.1$/),
        user_agent: UA,
        message_id: message.id,
      },
    });
    // A repeat succeeds and records nothing new.
    await request(h.app)
      .post(`/preferences/${unsubscribe}/unsubscribe`)
      .type("form")
      .send("List-Unsubscribe=One-Click")
      .expect(200);
    expect(await ledger(person.id)).toHaveLength(1);
  });

  it("a GET shows a confirm page and changes nothing", async () => {
    const { person, unsubscribe } = await personWithMessage("oc-get");
    const res = await request(h.app).get(`/preferences/${unsubscribe}/unsubscribe`).expect(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.text).toContain('<form method="post">');
    expect(res.text).toMatch(/<input type="hidden" name="List-Unsubscribe" value="One-Click" ?\/?>/);
    expect(res.text).toContain("Do you want to stop receiving messages of the kind “Product news”?");
    await request(h.app).head(`/preferences/${unsubscribe}/unsubscribe`).expect(200);
    expect(await unsubscribed(person.id)).toEqual([]);
    expect(await ledger(person.id)).toHaveLength(0);
  });

  it("the confirm page's button (a browser) gets a page in the person's language", async () => {
    const { person, unsubscribe } = await personWithMessage("oc-browser", "news", "de-DE");
    const res = await request(h.app)
      .post(`/preferences/${unsubscribe}/unsubscribe`)
      .set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
      .type("form")
      .send("List-Unsubscribe=One-Click")
      .expect(200);
    expect(res.text).toContain('<html lang="de">');
    expect(res.text).toContain("Sie erhalten keine Nachrichten der Art „Product news“ mehr.");
    expect(await unsubscribed(person.id)).toEqual(["news"]);
  });

  it.each([
    [
      "without the One-Click body",
      (t: { unsubscribe: string }) => ({ token: t.unsubscribe, body: "List-Unsubscribe=Later" }),
      400,
      "Bad request",
    ],
    [
      "with a preference token",
      (t: { preferences: string }) => ({ token: t.preferences, body: "List-Unsubscribe=One-Click" }),
      404,
      "Not found",
    ],
  ])("refuses %s with an HTML problem page", async (_name, pick, status, title) => {
    const tokens = await personWithMessage(`oc-bad-${status}`);
    const { token, body } = pick(tokens);
    const res = await request(h.app)
      .post(`/preferences/${token}/unsubscribe`)
      .type("form")
      .send(body)
      .expect(status);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.text).toContain(`<h1>${title}</h1>`);
    expect(await unsubscribed(tokens.person.id)).toEqual([]);
  });

  it("422 for a category that does not allow unsubscribing", async () => {
    const { person, unsubscribe } = await personWithMessage("oc-transactional", "transactional");
    const res = await request(h.app)
      .post(`/preferences/${unsubscribe}/unsubscribe`)
      .type("form")
      .send("List-Unsubscribe=One-Click")
      .expect(422);
    expect(res.text).toContain("Messages of category &#39;transactional&#39; cannot be unsubscribed from");
    expect(await unsubscribed(person.id)).toEqual([]);
  });
});

describe("hosted preference page", () => {
  it("an unknown token is a 404 HTML page with the problem's title, status and detail", async () => {
    const res = await request(h.app)
      .get(`/preferences/${"Z".repeat(43)}`)
      .expect(404);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.text).toContain("<h1>Not found</h1>");
    expect(res.text).toContain("This link is not valid");
    expect(res.text).toContain("Error 404");
    expect(res.headers).toMatchObject({
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
    });
  });

  it("an unsubscribe token opens the full page, naming the message's category", async () => {
    const { unsubscribe } = await personWithMessage("page-unsub");
    const res = await request(h.app).get(`/preferences/${unsubscribe}`).expect(200);
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).toContain("You came here from a message of the kind “Product news”.");
    expect(res.text).toContain(`<a href="${unsubscribe}/unsubscribe">`);
    expect(res.text).toContain('<label for="category-1">Product news</label>');
    expect(res.headers["content-security-policy"]).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'/,
    );
  });

  it("speaks German to a de-AT person", async () => {
    const { preferences } = await personWithMessage("page-de", "news", "de-AT");
    const res = await request(h.app).get(`/preferences/${preferences}`).expect(200);
    expect(res.text).toContain('<html lang="de">');
    expect(res.text).toContain("<title>Benachrichtigungseinstellungen</title>");
    expect(res.text).toContain("<legend>Stummgeschaltete Kanäle</legend>");
  });

  it("saves a form post with ledger source self_service and hosted_page provenance", async () => {
    const { person, preferences } = await personWithMessage("page-post");
    const res = await request(h.app)
      .post(`/preferences/${preferences}`)
      .set("User-Agent", "Browser/1")
      .type("form")
      .send("form=preferences&subscribed=marketing&muted=sms&quiet_start=22:30&quiet_end=06:45")
      .expect(200);
    expect(res.text).toContain('<p class="status" role="status">Your preferences have been saved.</p>');
    const row = await h.prisma.recipient.findUniqueOrThrow({ where: { id: person.id } });
    expect(row).toMatchObject({
      unsubscribed_categories: ["news"],
      muted_channels: ["sms"],
      quiet_hours: { start: "22:30", end: "06:45" },
    });
    const [entry] = await ledger(person.id);
    expect(entry).toMatchObject({
      source: "self_service",
      provenance: {
        method: "hosted_page",
        ip: expect.stringMatching(/127\.0\.0\.1$/),
        user_agent: "Browser/1",
      },
    });
  });

  it("shows the form again with an error for half-given quiet hours and saves nothing", async () => {
    const { person, preferences } = await personWithMessage("page-error");
    const res = await request(h.app)
      .post(`/preferences/${preferences}`)
      .type("form")
      .send("form=preferences&quiet_start=22:00&quiet_end=")
      .expect(422);
    expect(res.text).toContain('role="alert"');
    expect(res.text).toContain("Give both a start and an end time for quiet hours, or leave both empty.");
    expect(res.text).toContain('name="quiet_start" value="22:00"');
    expect(await ledger(person.id)).toHaveLength(0);
  });

  it("escapes what operators and people wrote", async () => {
    await makeCategory(h, "xss", { description: '<script>alert("x")</script>' });
    const { preferences } = await personWithMessage("page-escape");
    const res = await request(h.app).get(`/preferences/${preferences}`).expect(200);
    expect(res.text).not.toContain("<script>");
    expect(res.text).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  });
});
