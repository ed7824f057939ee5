import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { waitFor } from "@svc/testkit";
import { SCREENSHOTS, launchChromium } from "./chromium";
import { startInboxHarness, type InboxHarness } from "./inbox-fixtures";

// The <svc-inbox> component in Debian's Chromium (docs/inbox.md "The component"), loaded from
// GET /inbox.js by a page on another origin whose Content-Security-Policy allows nothing but the
// API's origin for scripts and connections (no inline styles or scripts at all). The badge follows
// new items live, the panel lists them, a click records the read (and the click) before the
// browser navigates away, the badge drops; keyboard, locale, theming, archive, infinite scroll and
// reconnecting are checked on the way.

// Browser globals used inside page callbacks (this file is type-checked for Node).
declare const customElements: { get(name: string): unknown };
declare function getComputedStyle(element: unknown): {
  borderRadius: string;
  backgroundColor: string;
  color: string;
};

let h: InboxHarness;
let page$: Server;
let pageBase: string;
let browser: Browser;
let context: BrowserContext;
const consoleErrors: string[] = [];

beforeAll(async () => {
  page$ = createServer((req, res) => void servePage(req.url ?? "/", res));
  page$.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => page$.once("listening", resolve));
  // Another origin than the API's (another port).
  pageBase = `http://localhost:${(page$.address() as AddressInfo).port}`;
  h = await startInboxHarness("inbox_browser", {
    config: { inbox: { allowed_origins: [pageBase], max_streams_per_person: 2 } },
  });
  await h
    .as()
    .put("/v1/templates/note")
    .send({ locales: { en: { title: "{{ data.title }}", body: "{{ data.body }}", url: "{{ data.url }}" } } })
    .expect(201);
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => page$?.close(resolve));
  await h?.close();
});

beforeEach(async () => {
  context = await browser.newContext();
  consoleErrors.length = 0;
});
afterEach(async () => {
  await context.close();
  // No CSP violation and no script error on any page.
  expect(consoleErrors).toEqual([]);
});

// The backend's page: it mints a token per page load, as docs/inbox.md shows.
async function servePage(url: string, res: import("node:http").ServerResponse) {
  const { pathname, searchParams } = new URL(url, pageBase);
  if (pathname === "/landing") {
    res.writeHead(200, {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": "default-src 'none'",
    });
    res.end(`<!doctype html><title>Landing</title><h1>Landing ${searchParams.get("n")}</h1>`);
    return;
  }
  const person = searchParams.get("person") ?? "web-ada";
  const token = await h.mint(person);
  const locale = searchParams.get("locale") ?? "en";
  res.writeHead(200, {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": `default-src 'none'; script-src ${h.base}; connect-src ${h.base}; style-src 'none'; base-uri 'none'; form-action 'none'`,
  });
  res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>App</title>
<script type="module" src="${h.base}/inbox.js"></script></head>
<body><header><svc-inbox api="${h.base}" token="${token}" locale="${locale}"></svc-inbox></header></body></html>`);
}

async function openApp(person: string, locale = "en"): Promise<Page> {
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  await page.goto(`${pageBase}/?person=${person}&locale=${locale}`);
  await page.waitForFunction(() => customElements.get("svc-inbox") !== undefined);
  return page;
}

const inbox = (page: Page) => page.locator("svc-inbox");
const badge = (page: Page) => inbox(page).locator("[part=badge]");
const items = (page: Page) => inbox(page).locator("li[part~=item]");

async function note(person: string, n: number, title = `Note ${n}`) {
  return h.send(
    person,
    { title, body: `Body ${n}`, url: `${pageBase}/landing?n=${n}` },
    { template: "note" },
  );
}

async function badgeText(page: Page): Promise<string | null> {
  return (await badge(page).isVisible()) ? await badge(page).textContent() : null;
}

it("shows new items live on the badge, lists them, and a click records the read before navigating", async () => {
  await h.person("web-ada", { locale: "en" });
  const page = await openApp("web-ada");
  expect(await badgeText(page)).toBeNull();
  // The stylesheet applies under style-src 'none' (a constructable stylesheet).
  expect(
    await inbox(page)
      .locator("[part=bell]")
      .evaluate((el) => getComputedStyle(el).borderRadius),
  ).toBe("50%");

  const first = await note("web-ada", 1);
  await waitFor(async () => (await badgeText(page)) === "1", { timeoutMs: 5_000, what: "badge 1, live" });
  const second = await note("web-ada", 2);
  await waitFor(async () => (await badgeText(page)) === "2", { timeoutMs: 5_000, what: "badge 2, live" });
  const bell = inbox(page).locator("[part=bell]");
  expect(await bell.getAttribute("aria-label")).toBe("Notifications, 2 unread");
  expect(await badge(page).evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(220, 38, 38)");

  await bell.click();
  expect(await bell.getAttribute("aria-expanded")).toBe("true");
  await waitFor(async () => (await items(page).count()) === 2, { what: "two items in the panel" });
  expect(await items(page).locator("[part=item-title]").allTextContents()).toEqual(["Note 2", "Note 1"]);
  expect(await items(page).first().getAttribute("part")).toBe("item item-unread");
  await page.screenshot({ path: path.join(SCREENSHOTS, "inbox-panel.png") });

  // A plain click: the report (keepalive) is answered before the browser leaves the page.
  await Promise.all([
    page.waitForURL(`${pageBase}/landing?n=1`),
    items(page).nth(1).locator("[part=item-link]").click(),
  ]);
  expect(await page.locator("h1").textContent()).toBe("Landing 1");
  const read = await h.prisma.inboxItem.findUniqueOrThrow({ where: { message_id: first } });
  expect(read.read_at).not.toBeNull();
  const engagement = await h.prisma.engagement.findMany({
    where: { message_id: first },
    orderBy: { type: "asc" },
  });
  expect(engagement.map((e) => e.type)).toEqual(["delivered", "opened", "clicked"]);

  // Back in the app, the badge has dropped.
  await page.goto(`${pageBase}/?person=web-ada`);
  await waitFor(async () => (await badgeText(page)) === "1", { what: "badge 1 after the click" });
  expect((await h.prisma.inboxItem.findUniqueOrThrow({ where: { message_id: second } })).read_at).toBeNull();

  // Mark all as read: the badge goes.
  await inbox(page).locator("[part=bell]").click();
  await inbox(page).locator("[part=mark-all]").click();
  await waitFor(async () => (await badgeText(page)) === null, { what: "no badge" });
  await waitFor(
    async () =>
      (await h.prisma.inboxItem.findUniqueOrThrow({ where: { message_id: second } })).read_at !== null,
  );
});

it("is usable by keyboard and screen readers, speaks German, and takes the page's theme", async () => {
  await h.person("web-kai", { locale: "de" });
  await note("web-kai", 1, "Erste");
  const page = await openApp("web-kai", "de");
  const bell = inbox(page).locator("[part=bell]");
  await waitFor(async () => (await bell.getAttribute("aria-label")) === "Benachrichtigungen, 1 ungelesen");

  await bell.focus();
  await page.keyboard.press("Enter");
  const panel = inbox(page).locator("[part=panel]");
  expect(await panel.isVisible()).toBe(true);
  expect(await panel.getAttribute("role")).toBe("region");
  expect(await inbox(page).locator("[part=heading]").textContent()).toBe("Benachrichtigungen");
  expect(await inbox(page).locator("[part=mark-all]").textContent()).toBe("Alle als gelesen markieren");
  await waitFor(async () => (await items(page).count()) === 1);
  // Arrow keys move between items; the unread state is spoken.
  await page.keyboard.press("ArrowDown");
  const focused = () =>
    inbox(page).evaluate((el) => el.shadowRoot!.activeElement?.getAttribute("part") ?? null);
  expect(await focused()).toBe("item-link");
  expect(await items(page).first().locator("[part=item-link]").textContent()).toMatch(/^Ungelesen: Erste/);
  expect(await items(page).first().locator("[part=archive]").getAttribute("aria-label")).toBe(
    "Archivieren: Erste",
  );
  await page.keyboard.press("Escape");
  expect(await panel.isVisible()).toBe(false);
  expect(await focused()).toBe("bell");
  expect(await bell.getAttribute("aria-expanded")).toBe("false");

  // Theming: custom properties on the element, and ::part from the page.
  await inbox(page).evaluate((el) => el.style.setProperty("--svc-inbox-badge-bg", "rgb(0, 128, 0)"));
  expect(await badge(page).evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(0, 128, 0)");
  await page.evaluate(`(() => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync("svc-inbox::part(badge) { color: rgb(1, 2, 3); }");
    document.adoptedStyleSheets = [sheet];
  })()`);
  expect(await badge(page).evaluate((el) => getComputedStyle(el).color)).toBe("rgb(1, 2, 3)");

  // Switching the locale attribute relabels it at once.
  await inbox(page).evaluate((el) => el.setAttribute("locale", "en"));
  expect(await bell.getAttribute("aria-label")).toBe("Notifications, 1 unread");
});

it("archives, scrolls for more, and reconnects after the connection drops", async () => {
  await h.person("web-lee", { locale: "en" });
  for (let n = 1; n <= 25; n++) await note("web-lee", n);
  await waitFor(
    async () => (await h.prisma.inboxItem.count({ where: { recipient: { external_id: "web-lee" } } })) === 25,
    {
      timeoutMs: 15_000,
    },
  );
  const page = await openApp("web-lee");
  await waitFor(async () => (await badgeText(page)) === "25");
  await inbox(page).locator("[part=bell]").click();
  await waitFor(async () => (await items(page).count()) === 20, { what: "the first page" });
  // Infinite scroll: the end of the panel loads the next page.
  await inbox(page)
    .locator("[part=panel]")
    .evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await waitFor(async () => (await items(page).count()) === 25, { what: "all 25 after scrolling" });

  // Archive the newest: it leaves the panel and the counts.
  await items(page).first().locator("[part=archive]").click();
  await waitFor(async () => (await items(page).count()) === 24);
  await waitFor(async () => (await badgeText(page)) === "24");
  const archived = await h.prisma.inboxItem.count({
    where: { recipient: { external_id: "web-lee" }, archived_at: { not: null } },
  });
  expect(archived).toBe(1);

  // The connection drops (every socket of the API closed); EventSource reconnects by itself and
  // resumes with Last-Event-ID: a new item still reaches the badge and the open panel.
  h.server.closeAllConnections();
  await note("web-lee", 26, "After the drop");
  // What the browser says about the stream it lost is expected here.
  const dropped = "Failed to load resource: net::ERR_INCOMPLETE_CHUNKED_ENCODING";
  await waitFor(async () => (await badgeText(page)) === "25", {
    timeoutMs: 15_000,
    what: "badge 25 after reconnecting",
  });
  await waitFor(
    async () => (await items(page).first().locator("[part=item-title]").textContent()) === "After the drop",
  );
  const unexpected = consoleErrors.filter((text) => text !== dropped);
  consoleErrors.splice(0, consoleErrors.length, ...unexpected);
});

it("backs off while its stream is refused, then connects and reads the list again", async () => {
  await h.person("web-max", { locale: "en" });
  // Two streams held elsewhere: the person's limit here is two, so the page's stream is refused (429).
  const token = await h.mint("web-max");
  const held = [await h.stream(token), await h.stream(token)];
  await note("web-max", 1);
  const page = await openApp("web-max");
  await inbox(page).locator("[part=bell]").click();
  await waitFor(async () => (await items(page).count()) === 1, { what: "the list, read without the stream" });
  await page.waitForTimeout(1_500);
  for (const s of held) s.close();
  // Reconnected (backoff of at most a few seconds), it reads the list again and follows new items.
  await note("web-max", 2, "Once connected");
  await waitFor(
    async () => (await items(page).first().locator("[part=item-title]").textContent()) === "Once connected",
    {
      timeoutMs: 15_000,
      what: "the item after reconnecting",
    },
  );
  await waitFor(async () => (await badgeText(page)) === "2");
  const refused = "Failed to load resource: the server responded with a status of 429 (Too Many Requests)";
  consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((text) => text !== refused));
});

it("asks the page for a new token when its own is revoked, and goes on with the new one", async () => {
  await h.person("web-rev", { locale: "en" });
  const page = await openApp("web-rev");
  await inbox(page).evaluate((el) =>
    el.addEventListener("token-expired", () => ((globalThis as { expired?: boolean }).expired = true)),
  );
  await h.as().post("/v1/recipients/web-rev/preference-token").expect(201);
  await page.waitForFunction(() => (globalThis as { expired?: boolean }).expired === true, undefined, {
    timeout: 15_000,
  });
  const fresh = await h.mint("web-rev");
  await inbox(page).evaluate((el, token) => el.setAttribute("token", token), fresh);
  await note("web-rev", 1);
  await waitFor(async () => (await badgeText(page)) === "1", {
    timeoutMs: 5_000,
    what: "badge with the new token",
  });
  const refused = "Failed to load resource: the server responded with a status of 401 (Unauthorized)";
  consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((text) => text !== refused));
});
