import type { AddressInfo, Server } from "node:net";
import path from "node:path";
import type { Browser } from "playwright-core";
import { SCREENSHOTS, launchChromium } from "./chromium";
import type { Harness } from "./service-harness";
import { messageLinkTokens } from "@svc/core";
import {
  SECRET_KEY,
  linksOf,
  makeCategory,
  makeMessage,
  makePerson,
  startRightsHarness,
} from "./recipient-rights-fixtures";

// A real browser (Debian's chromium) against the API listening on 127.0.0.1: the hosted page works
// without JavaScript, by label and keyboard, and what it saves shows up in the API and the ledger.

let h: Harness;
let server: Server;
let base: string;
let browser: Browser;

beforeAll(async () => {
  h = await startRightsHarness("preferences_browser", {
    config: { channels: { email: { provider: "console" }, sms: { provider: "console" } } },
  });
  await makeCategory(h, "news", { description: "Product news" });
  server = h.app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

it("leaves a category, mutes a channel and sets quiet hours; the API shows the change and the ledger entry", async () => {
  await makePerson(h, "browser-1");
  const { url } = (await h.as().post("/v1/recipients/browser-1/preference-token").expect(201)).body as {
    url: string;
  };
  // Without api.public_url the link is a path on this service.
  expect(url).toMatch(/^\/preferences\/[A-Za-z0-9_-]{43}$/);

  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${base}${url}`);
  expect(await page.getAttribute("html", "lang")).toBe("en");
  await page.getByRole("heading", { level: 1, name: "Notification preferences" }).waitFor();
  expect(await page.getByRole("group", { name: "Messages I want to receive" }).isVisible()).toBe(true);

  // By keyboard: focus the category's checkbox through its label and press Space.
  const news = page.getByLabel("Product news");
  expect(await news.isChecked()).toBe(true);
  await news.focus();
  await page.keyboard.press("Space");
  expect(await news.isChecked()).toBe(false);
  await page.getByRole("group", { name: "Channels to mute" }).getByLabel("Text messages (SMS)").check();
  await page.getByLabel("From").fill("21:30");
  await page.getByLabel("Until").fill("07:15");
  await page.getByRole("button", { name: "Save preferences" }).click();

  await page.getByRole("status").filter({ hasText: "Your preferences have been saved." }).waitFor();
  expect(await page.getByLabel("Product news").isChecked()).toBe(false);
  expect(await page.getByLabel("Text messages (SMS)").isChecked()).toBe(true);
  await page.screenshot({ path: path.join(SCREENSHOTS, "preferences-page-saved.png"), fullPage: true });
  await context.close();

  const recipient = await h.as().get("/v1/recipients/browser-1").expect(200);
  expect(recipient.body.preferences).toEqual({
    unsubscribed_categories: ["news"],
    muted_channels: ["sms"],
    quiet_hours: { start: "21:30", end: "07:15" },
  });
  const history = await h.as().get("/v1/recipients/browser-1/preferences/history").expect(200);
  expect(history.body.items).toHaveLength(1);
  expect(history.body.items[0]).toMatchObject({
    source: "self_service",
    changes: {
      unsubscribed_categories: { added: ["news"], removed: [] },
      muted_channels: { added: ["sms"], removed: [] },
      quiet_hours: { from: null, to: { start: "21:30", end: "07:15" } },
    },
    provenance: {
      method: "hosted_page",
      ip: expect.stringMatching(/127\.0\.0\.1$/),
      user_agent: expect.stringContaining("Chrome"),
    },
  });
}, 60_000);

it("the unsubscribe link asks first, then leaves the category with one button", async () => {
  const person = await makePerson(h, "browser-2", { locale: "de-AT" });
  const message = await makeMessage(h, person, { category: "news" });
  const links = await linksOf(h, message);
  expect(links.unsubscribe_url).toBeNull(); // no public URL: links to people are left out
  // The token delivery would put in the link (its hash is stored by linksOf).
  const token = messageLinkTokens(SECRET_KEY, message).unsubscribe;

  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${base}/preferences/${token}/unsubscribe`);
  expect(await page.getAttribute("html", "lang")).toBe("de");
  expect(
    (await h.prisma.recipient.findUniqueOrThrow({ where: { id: person.id } })).unsubscribed_categories,
  ).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, "unsubscribe-confirm.png"), fullPage: true });
  await page.getByRole("button", { name: "Abmelden" }).click();
  await page.getByRole("heading", { level: 1, name: "Sie sind abgemeldet" }).waitFor();
  expect(
    (await h.prisma.recipient.findUniqueOrThrow({ where: { id: person.id } })).unsubscribed_categories,
  ).toEqual(["news"]);
  const [entry] = await h.prisma.consentEntry.findMany({ where: { recipient_id: person.id } });
  expect(entry).toMatchObject({ source: "one_click", provenance: { method: "one_click" } });
  await context.close();
}, 60_000);

it("an unknown link is an HTML page saying so", async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const response = await page.goto(`${base}/preferences/${"Q".repeat(43)}`);
  expect(response?.status()).toBe(404);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Not found");
  await context.close();
}, 60_000);
