import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { linkTokenHash } from "@svc/core";
import { createLogCapture, createLogger } from "@svc/log";
import { waitFor } from "@svc/testkit";
import { buildHandlers, queuesWithHandlers, startWorkers, type RunningWorkers } from "@svc/worker";
import { SCREENSHOTS, launchChromium } from "./chromium";
import { startReviewedApi, type Delivered, type ReviewedApi } from "./reviewed-api";
import type { Harness } from "./service-harness";
import { rowsHolding } from "./stored-text";

// The whole review cycle for real (docs/approvals.md "Review links"): an agent's message is held,
// the embedded workers ingest `svc.approval_requested` and deliver each reviewer's notification to
// a local webhook receiver with the real review URL filled in; Debian's Chromium (no JavaScript)
// opens reviewer 1's link from what was delivered, reads the message and rejects it with a reason;
// the API shows the decision; reviewer 2's link answers 410 naming the decider. Afterwards no raw
// token is in any text or JSON column of any table, nor in a log line.

const TITLE = "Your March invoice";
const BODY = "Hi Carla,\nyour invoice <#4711> is overdue. Pay within 3 days or we escalate!";

let h: Harness;
let api: ReviewedApi;
let base: string;
let browser: Browser;
let workers: RunningWorkers | undefined;
const workerLogs = createLogCapture();
let delivered: Delivered[];

beforeAll(async () => {
  api = await startReviewedApi("review_browser");
  ({ h, base, delivered } = api);

  const logger = createLogger({
    service: "review-browser-workers",
    level: "info",
    stream: workerLogs.stream,
  });
  const { handlers } = buildHandlers({
    queues: h.queues,
    logger,
    prisma: h.prisma,
    config: h.config,
    now: () => new Date(),
    env: api.env,
    deliverInline: true,
  });
  workers = startWorkers({ config: h.config, handlers, queues: queuesWithHandlers(handlers), logger });
  await h.queues.ready(30_000);

  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await workers?.close();
  await api?.close();
});

async function setUp() {
  const admin = h.as();
  await admin.put("/v1/categories/billing").send({ description: "Billing" }).expect(201);
  await admin
    .put("/v1/templates/agent-note")
    .send({ locales: { en: { title: "{{ data.title }}", body: "{{ data.body }}" } } })
    .expect(201);
  await admin
    .put("/v1/templates/review-needed")
    .send({
      locales: {
        en: {
          title: "Review needed: {{ data.title }}",
          body: "{{ data.agent_name }} wants to message {{ data.recipient }}. Decide here: {{ data.review_url }}",
        },
      },
    })
    .expect(201);
  await admin
    .put("/v1/rules/tell-reviewers")
    .send({
      event: "svc.approval_requested",
      template: "review-needed",
      category: "transactional",
      channels: ["hook"],
      importance: "high",
    })
    .expect(201);
  await admin
    .put("/v1/agents/collector")
    .send({ name: "Collections Bot", approval: true, reviewers: ["ada", "bob"], frequency_caps: [] })
    .expect(201);
  for (const [externalId, address] of [
    ["ada", "ada-device"],
    ["bob", "bob-device"],
    ["carla", "carla-device"],
  ])
    await admin
      .put(`/v1/recipients/${externalId}`)
      .send({ locale: "en", timezone: "UTC", addresses: [{ channel: "hook", value: address }] })
      .expect(201);
}

const REVIEW_URL = /(http:\/\/127\.0\.0\.1:\d+\/review\/[A-Za-z0-9_-]{43})/;

/** The review URL in the notification delivered to `reviewer`, once it arrives. */
async function deliveredLink(reviewer: string): Promise<string> {
  const notice = await waitFor(async () => delivered.find((d) => d.recipient.external_id === reviewer), {
    timeoutMs: 20_000,
    intervalMs: 50,
    what: `the notification to ${reviewer}`,
  });
  expect(notice.content.title).toBe(`Review needed: ${TITLE}`);
  const url = REVIEW_URL.exec(notice.content.body)?.[1];
  expect(notice.content.body).toBe(`Collections Bot wants to message carla. Decide here: ${url}`);
  return url!;
}

it("reviewer 1 rejects from the delivered link with a reason; the API shows it; reviewer 2's link is 410", async () => {
  await setUp();
  const agentKey = await h.keyWith(["messages:write"], "collector");
  const sent = await h
    .as(agentKey)
    .post("/v1/messages")
    .send({
      recipient: "carla",
      template: "agent-note",
      category: "billing",
      channels: ["hook"],
      data: { title: TITLE, body: BODY },
    })
    .expect(202);
  expect(sent.body.status).toBe("pending_approval");
  const messageId = sent.body.id as string;

  const adaUrl = await deliveredLink("ada");
  const bobUrl = await deliveredLink("bob");
  expect(adaUrl.startsWith(`${base}/review/`)).toBe(true);
  expect(bobUrl).not.toBe(adaUrl);

  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const opened = await page.goto(adaUrl);
  expect(opened?.status()).toBe(200);
  expect(await page.getAttribute("html", "lang")).toBe("en");
  await page.getByRole("heading", { level: 1, name: "Review a message" }).waitFor();
  const message = page.getByRole("region", { name: "The message" });
  expect(await message.getByText(TITLE, { exact: true }).isVisible()).toBe(true);
  // The body is shown as text, markup-like parts and line break included.
  expect(await message.locator(".message-text").innerText()).toBe(BODY);
  expect(await page.getByRole("definition").allInnerTexts()).toEqual([
    "Collections Bot (collector)",
    "carla",
    "billing",
    "Normal",
    expect.stringMatching(/^\w+ \d{1,2}, \d{4} at \d{1,2}:\d\d [AP]M UTC \(in 24 hours\)$/),
  ]);
  expect(await page.getByRole("button", { name: "Approve and send" }).isVisible()).toBe(true);
  await expectReadableColours(page);

  // By keyboard: the labelled reason field, then Tab to Reject and Enter.
  const reason = page.getByLabel("Reason for rejecting (optional)");
  await reason.focus();
  await page.keyboard.type("Too threatening for a first reminder");
  await page.screenshot({ path: path.join(SCREENSHOTS, "review-page.png"), fullPage: true });
  await page.keyboard.press("Tab");
  expect(await page.locator(":focus").textContent()).toBe("Reject");
  await page.keyboard.press("Enter");

  await page.getByRole("heading", { level: 1, name: "Decision recorded" }).waitFor();
  expect(await page.getByRole("status").innerText()).toMatch(
    /^Rejected by link:ada on \w+ \d{1,2}, \d{4} at \d{1,2}:\d\d [AP]M UTC\.\s+Reason: Too threatening for a first reminder$/,
  );
  await context.close();

  const record = await h.as().get(`/v1/messages/${messageId}`).expect(200);
  expect(record.body).toMatchObject({
    status: "cancelled",
    status_reason: "rejected: Too threatening for a first reminder",
    reviewed_by: "link:ada",
  });
  expect(Date.now() - Date.parse(record.body.reviewed_at as string)).toBeLessThan(60_000);

  const late = await browser.newContext({ javaScriptEnabled: false });
  const bobPage = await late.newPage();
  const gone = await bobPage.goto(bobUrl);
  expect(gone?.status()).toBe(410);
  await bobPage.getByRole("heading", { level: 1, name: "This review is closed" }).waitFor();
  expect(await bobPage.getByRole("status").innerText()).toMatch(
    /^Rejected by link:ada on \w+ \d{1,2}, \d{4} at \d{1,2}:\d\d [AP]M UTC\.\s+Reason: Too threatening for a first reminder$/,
  );
  expect(await bobPage.getByRole("button").count()).toBe(0);
  await bobPage.screenshot({ path: path.join(SCREENSHOTS, "review-page-410.png"), fullPage: true });
  await late.close();

  // No raw token anywhere svc stores text: every text, varchar, JSON and array column of every table.
  const tokens = [adaUrl, bobUrl].map((url) => url.slice(url.lastIndexOf("/") + 1));
  for (const token of tokens) {
    expect(await rowsHolding(h.prisma, token)).toEqual([]);
    // The scan does find what is there: each token's SHA-256 is stored for lookup.
    expect(await rowsHolding(h.prisma, linkTokenHash(token))).toEqual(["review_links.token_hash"]);
  }
  const logged = JSON.stringify([...h.logs.entries(), ...workerLogs.entries()]);
  expect(logged).toContain("/review/[REDACTED]");
  for (const token of tokens) expect(logged).not.toContain(token);
}, 120_000);

// The DOM as the page functions below use it (this project compiles without the DOM library).
interface StyledElement {
  parentElement: StyledElement | null;
}
declare const getComputedStyle: (element: StyledElement) => {
  color: string;
  backgroundColor: string;
  outlineColor: string;
};

/** WCAG 2 contrast: text at least 4.5:1 against its background; the focus outline 3:1. */
async function expectReadableColours(page: Page): Promise<void> {
  const samples = [
    page.getByRole("heading", { level: 1 }),
    page.locator(".facts dt").first(),
    page.locator(".message-text"),
    page.locator(".hint").first(),
    page.getByText("Reason for rejecting (optional)"),
    page.getByRole("button", { name: "Approve and send" }),
    page.getByRole("button", { name: "Reject" }),
  ];
  for (const sample of samples) {
    const { color, background } = await sample.evaluate((element: StyledElement) => {
      let node: StyledElement | null = element;
      let background = "rgb(255, 255, 255)";
      while (node) {
        const fill = getComputedStyle(node).backgroundColor;
        if (fill !== "rgba(0, 0, 0, 0)" && fill !== "transparent") {
          background = fill;
          break;
        }
        node = node.parentElement;
      }
      return { color: getComputedStyle(element).color, background };
    });
    expect({ text: await sample.innerText(), ratio: contrast(color, background) >= 4.5 }).toEqual({
      text: await sample.innerText(),
      ratio: true,
    });
  }
  const reject = page.getByRole("button", { name: "Reject" });
  await reject.focus();
  const outline = await reject.evaluate((element: StyledElement) => getComputedStyle(element).outlineColor);
  expect(contrast(outline, "rgb(255, 255, 255)")).toBeGreaterThanOrEqual(3);
}

function contrast(a: string, b: string): number {
  const luminance = (css: string) => {
    const [r, g, bl] = (css.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}
