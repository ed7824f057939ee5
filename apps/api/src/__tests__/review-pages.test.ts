import request from "supertest";
import { createApprovalRequest, decideMessageByKey, reviewToken } from "@svc/engine";
import { createLogger } from "@svc/log";
import { Prisma } from "@svc/store";
import { waitForLog } from "./test-app";
import { startHarness, type Harness } from "./service-harness";

// Hosted review links (docs/approvals.md "Review links") over HTTP without a browser: what the page
// shows, the two decisions, 410 once anyone decided or the item expired, 404, headers, language,
// and no token in the log. Held messages are made through the API by an agent's key; the tokens
// are derived from the stored link rows with the harness's secret, as delivery does.

const SECRET = "test-secret-key-for-review-links-0123456789";
let clock = new Date("2026-03-04T09:00:00.000Z");
let h: Harness;
let agentKey: string;
/** Every raw token this file made: none may ever reach the log. */
const allTokens: string[] = [];

beforeAll(async () => {
  h = await startHarness("review_pages", {
    secretKey: SECRET,
    now: () => clock,
    config: {
      api: { public_url: "https://svc.example.com" },
      channels: { email: { provider: "console" } },
    },
  });
  await h.prisma.category.create({ data: { key: "ops", description: "Operations" } });
  await h.prisma.template.create({
    data: {
      key: "agent-note",
      locales: { en: { title: "{{ data.title }}", body: "{{ data.body }}" } } as Prisma.InputJsonValue,
    },
  });
  await h
    .as()
    .put("/v1/agents/helper")
    .send({
      name: "Helper Bot",
      approval: true,
      approval_ttl_seconds: 3600,
      reviewers: ["ada", "bob", "dora"],
      frequency_caps: [],
    })
    .expect(201);
  agentKey = await h.keyWith(["messages:write", "messages:read"], "helper");
  await person("cust-1", { addresses: [{ channel: "email", value: "cust@example.com" }] });
  // ada and dora are known people (English and Austrian German); bob is no person at all.
  await person("ada", { locale: "en", timezone: "Europe/London" });
  await person("dora", { locale: "de-AT", timezone: "Europe/Vienna" });
}, 60_000);
afterAll(() => h.close());

async function person(externalId: string, profile: Record<string, unknown>) {
  await h.as().put(`/v1/recipients/${externalId}`).send(profile).expect(201);
}

/** An agent's message held for review; its reviewers' raw tokens, derived like delivery does. */
async function hold(title = "Your invoice", body = "Hello,\nplease pay <b>now</b> & thanks.") {
  const sent = await h
    .as(agentKey)
    .post("/v1/messages")
    .send({
      recipient: "cust-1",
      template: "agent-note",
      category: "ops",
      channels: ["email"],
      importance: "high",
      data: { title, body },
    })
    .expect(202);
  expect(sent.body.status).toBe("pending_approval");
  const links = await h.prisma.reviewLink.findMany({ where: { message_id: sent.body.id as string } });
  const tokens = Object.fromEntries(
    links.map((link) => [link.reviewer, reviewToken(SECRET, link.id, link.nonce)]),
  );
  allTokens.push(...Object.values(tokens));
  return { id: sent.body.id as string, tokens: tokens as Record<"ada" | "bob" | "dora", string> };
}

const message = (id: string) => h.prisma.message.findUniqueOrThrow({ where: { id } });
const page = (token: string) => request(h.app).get(`/review/${token}`);
/** What the page's form for `action` posts: its `decision` field, then any other fields. */
const decide = (token: string, action: "approve" | "reject", form = "") =>
  request(h.app)
    .post(`/review/${token}/${action}`)
    .type("form")
    .send([`decision=${action}`, form].filter(Boolean).join("&"));

/** The page's text without tags, spaces folded: what a reader sees. */
const visible = (markup: string) =>
  (/<main>([\s\S]*)<\/main>/.exec(markup)?.[1] ?? "")
    .replace(/<\/?(time|strong)\b[^>]*>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();

describe("an open held message", () => {
  it("GET shows what is asked, escaped, with both forms, and changes nothing", async () => {
    const { id, tokens } = await hold();
    const before = await message(id);
    const res = await page(tokens.ada).expect(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).toContain("<h1>Review a message</h1>");
    expect(visible(res.text)).toContain(
      "Helper Bot (helper) wants to send the message below. It waits until a person approves it. " +
        "Sender Helper Bot (helper) To cust-1 Category ops Importance High " +
        // ada lives in London: 10:00 GMT is 09:00 UTC plus the one-hour TTL
        "Decide by March 4, 2026 at 10:00 AM GMT (in 60 minutes)",
    );
    expect(res.text).toContain('<time datetime="2026-03-04T10:00:00.000Z">');
    expect(res.text).toContain("<strong>Your invoice</strong>");
    // The body is text: markup in it is shown, never run, and its line break is kept.
    expect(res.text).toContain(
      '<div class="message-text">Hello,\nplease pay &lt;b&gt;now&lt;/b&gt; &amp; thanks.</div>',
    );
    expect(res.text).toContain(`<form method="post" action="${tokens.ada}/approve" class="decision">`);
    expect(res.text).toContain(`<form method="post" action="${tokens.ada}/reject" class="decision">`);
    expect(res.text).toMatch(/<button type="submit" class="approve">\s*Approve and send\s*<\/button>/);
    expect(res.text).toContain('<button type="submit" class="reject">Reject</button>');
    expect(res.text).toContain('<label for="reason">Reason for rejecting (optional)</label>');
    expect(res.text).toMatch(/<textarea\s+id="reason"\s+name="reason"/);

    // Opening it (a mail scanner, a link preview, HEAD) changes nothing.
    await request(h.app).head(`/review/${tokens.ada}`).expect(200);
    await page(tokens.bob).expect(200);
    expect(await message(id)).toEqual(before);
  });

  it("answers with the strict headers of the hosted pages", async () => {
    const { tokens } = await hold();
    const res = await page(tokens.ada).expect(200);
    expect(res.headers).toMatchObject({
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "x-robots-tag": "noindex, nofollow",
    });
    expect(res.headers["content-security-policy"]).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
    );
    expect(res.text).not.toContain("<script");
    // The 410 and 404 pages too.
    const gone = await decide(tokens.ada, "approve").expect(200);
    expect(gone.headers["cache-control"]).toBe("no-store");
    const closed = await page(tokens.bob).expect(410);
    const missing = await page("Q".repeat(43)).expect(404);
    for (const res of [closed, missing])
      expect(res.headers).toMatchObject({
        "cache-control": "no-store",
        "referrer-policy": "no-referrer",
        "x-frame-options": "DENY",
      });
  });
});

describe("deciding by link", () => {
  it("reject with a reason: 200 naming the decision; the message is cancelled by link:<reviewer>", async () => {
    const { id, tokens } = await hold();
    const res = await decide(tokens.ada, "reject", "reason=Too+pushy%2C+tone+it+down").expect(200);
    expect(res.text).toContain("<h1>Decision recorded</h1>");
    expect(visible(res.text)).toContain(
      "Rejected by link:ada on March 4, 2026 at 9:00 AM GMT. Reason: Too pushy, tone it down",
    );
    expect(res.text).not.toContain("<form");
    expect(await message(id)).toMatchObject({
      status: "cancelled",
      status_reason: "rejected: Too pushy, tone it down",
      reviewed_by: "link:ada",
      reviewed_by_key_id: null,
      reviewed_at: clock,
    });
    const api = await h.as().get(`/v1/messages/${id}`).expect(200);
    expect(api.body).toMatchObject({
      status: "cancelled",
      status_reason: "rejected: Too pushy, tone it down",
      reviewed_by: "link:ada",
    });
  });

  it("reject without a reason is plain `rejected`", async () => {
    const { id, tokens } = await hold();
    await decide(tokens.bob, "reject", "reason=++").expect(200);
    expect(await message(id)).toMatchObject({ status: "cancelled", status_reason: "rejected" });
  });

  it("approve: 200, the message is queued and reviewed_by link:<reviewer>", async () => {
    const { id, tokens } = await hold();
    const res = await decide(tokens.bob, "approve").expect(200);
    expect(visible(res.text)).toContain(
      "Decision recorded Approved by link:bob on March 4, 2026 at 9:00 AM UTC.",
    );
    expect(await message(id)).toMatchObject({
      status: "queued",
      status_reason: null,
      reviewed_by: "link:bob",
      reviewed_at: clock,
    });
  });

  it("once anyone decided, every link answers 410 naming who decided and when, and changes nothing", async () => {
    const { id, tokens } = await hold();
    await decide(tokens.ada, "reject", "reason=no").expect(200);
    const decided = await message(id);
    for (const token of [tokens.ada, tokens.bob]) {
      const res = await page(token).expect(410);
      expect(res.text).toContain("<h1>This review is closed</h1>");
      expect(visible(res.text)).toMatch(/Rejected by link:ada on March 4, 2026 at 9:00 AM (GMT|UTC)\./);
      expect(visible(res.text)).toContain("Reason: no This link no longer accepts decisions. Error 410");
      expect(visible(res.text)).toContain("Helper Bot (helper) asked to send the message below.");
      expect(res.text).not.toContain("(in 60 minutes)");
      expect(res.text).not.toContain("<form");
      // The message is still shown, so the late reviewer knows what it was.
      expect(res.text).toContain("<strong>Your invoice</strong>");
    }
    const late = await decide(tokens.bob, "approve").expect(410);
    expect(visible(late.text)).toContain("This review is closed Rejected by link:ada on");
    await decide(tokens.bob, "reject", "reason=me+too").expect(410);
    expect(await message(id)).toEqual(decided);
  });

  it("a decision by API key closes the links too (410 names the key)", async () => {
    const { id, tokens } = await hold();
    const deps = engineDeps();
    const principal = {
      keyId: h.adminKeyId,
      keyName: "ops console",
      scopes: ["admin" as const],
      agentKey: null,
    };
    await decideMessageByKey(deps, principal, id, { action: "approve" });
    const res = await page(tokens.ada).expect(410);
    expect(visible(res.text)).toContain("Approved by ops console on March 4, 2026 at 9:00 AM GMT.");
  });

  it("past the deadline: the page is 410 `Expired on …`; a late approve expires the message", async () => {
    const { id, tokens } = await hold();
    const start = clock;
    clock = new Date(start.getTime() + 3601_000);
    try {
      const res = await page(tokens.ada).expect(410);
      expect(visible(res.text)).toContain("Expired on March 4, 2026 at 10:00 AM GMT without a decision.");
      expect((await message(id)).status).toBe("pending_approval"); // GET changes nothing
      const late = await decide(tokens.bob, "approve").expect(410);
      expect(visible(late.text)).toContain("Expired on March 4, 2026 at 10:00 AM UTC without a decision.");
      expect(await message(id)).toMatchObject({
        status: "suppressed",
        status_reason: "expired",
        reviewed_by: null,
      });
    } finally {
      clock = start;
    }
  });

  it("a reason that is too long or holds U+0000: 422 with the form again, nothing decided", async () => {
    const { id, tokens } = await hold();
    const long = "x".repeat(1001);
    const res = await decide(tokens.ada, "reject", `reason=${long}`).expect(422);
    expect(res.text).toContain("The reason can be at most 1000 characters long.");
    expect(res.text).toContain(`>\n${long}</textarea>`);
    // The page is at …/reject now: its forms post to the neighbouring actions.
    expect(res.text).toContain('<form method="post" action="approve" class="decision">');
    const nul = await decide(tokens.ada, "reject", "reason=a%00b").expect(422);
    expect(nul.text).toContain("The reason contains a character that cannot be stored (U+0000).");
    expect((await message(id)).status).toBe("pending_approval");
    // 1,000 characters (after trimming) are fine.
    await decide(tokens.ada, "reject", `reason=${"y".repeat(1000)}+`).expect(200);
  });

  it("a GET of an action's address goes back to the page (303) and changes nothing", async () => {
    const { id, tokens } = await hold();
    const res = await request(h.app).get(`/review/${tokens.ada}/approve`).expect(303);
    expect(res.headers.location).toBe(`../${tokens.ada}`);
    expect((await message(id)).status).toBe("pending_approval");
  });
});

describe("unknown links", () => {
  it.each([
    ["GET", "Q".repeat(43)],
    ["GET", "short"],
    ["POST approve", "Q".repeat(43)],
    ["POST reject", "Q".repeat(43)],
  ])("%s %s is a 404 HTML page with the problem's title, detail and status", async (how, token) => {
    const res =
      how === "GET" ? await page(token) : await decide(token, how === "POST approve" ? "approve" : "reject");
    expect(res.status).toBe(404);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.text).toContain("<h1>Not found</h1>");
    expect(res.text).toContain("<p>this review link does not exist</p>");
    expect(res.text).toContain("Error 404");
  });
});

describe("language", () => {
  it("speaks the reviewer's stored locale (de-AT → German), whatever the browser asks", async () => {
    const { tokens } = await hold();
    const res = await page(tokens.dora).set("Accept-Language", "en-US").expect(200);
    expect(res.text).toContain('<html lang="de">');
    expect(res.text).toContain("<h1>Nachricht prüfen</h1>");
    expect(visible(res.text)).toContain(
      "Absender Helper Bot (helper) An cust-1 Kategorie ops Wichtigkeit Hoch " +
        "Entscheiden bis 4. März 2026 um 11:00 MEZ (in 60 Minuten)",
    );
    expect(res.text).toMatch(/Freigeben und senden/);
    expect(res.text).toContain('<label for="reason">Grund für die Ablehnung (optional)</label>');
    const rejected = await decide(tokens.dora, "reject", "reason=Zu+aufdringlich").expect(200);
    expect(visible(rejected.text)).toContain(
      "Entscheidung gespeichert Abgelehnt von link:dora am 4. März 2026 um 10:00 MEZ. Grund: Zu aufdringlich",
    );
    const closed = await page(tokens.ada).set("Accept-Language", "de").expect(410);
    expect(closed.text).toContain('<html lang="en">'); // ada's stored locale is English
  });

  it("a reviewer who is no known person gets the browser's language, else English", async () => {
    const { tokens } = await hold();
    const german = await page(tokens.bob).set("Accept-Language", "fr-FR, de-CH;q=0.8, en;q=0.5").expect(200);
    expect(german.text).toContain('<html lang="de">');
    expect(visible(german.text)).toContain("Entscheiden bis 4. März 2026 um 10:00 UTC (in 60 Minuten)");
    const french = await page(tokens.bob).set("Accept-Language", "fr").expect(200);
    expect(french.text).toContain('<html lang="en">');
    const none = await page(tokens.bob).expect(200);
    expect(none.text).toContain('<html lang="en">');
  });
});

describe("an approval request (kind action)", () => {
  it("shows what is asked with an Approve button; reject records the reason as the comment", async () => {
    const deps = engineDeps();
    const principal = {
      keyId: "key_agent",
      keyName: "helper key",
      scopes: ["messages:write" as const],
      agentKey: "helper",
    };
    const created = await createApprovalRequest(deps, principal, {
      title: "Restart the billing cluster",
      body: "Rolling restart of 12 nodes.\nExpected downtime: none.",
      reviewers: ["ada", "bob"],
      importance: "critical",
      expires_in_seconds: 7200,
    });
    expect(created.importance).toBe("high"); // capped at the agent's max_importance
    const links = await h.prisma.reviewLink.findMany({ where: { approval_id: created.id } });
    const tokenOf = (reviewer: string) => {
      const link = links.find((l) => l.reviewer === reviewer)!;
      const token = reviewToken(SECRET, link.id, link.nonce);
      allTokens.push(token);
      return token;
    };

    const res = await page(tokenOf("ada")).expect(200);
    expect(res.text).toContain("<h1>Approval requested</h1>");
    expect(visible(res.text)).toContain(
      "Helper Bot (helper) asks for approval before going ahead with what is described below. " +
        "Sender Helper Bot (helper) Importance High Decide by March 4, 2026 at 11:00 AM GMT (in 2 hours) " +
        "What is asked Restart the billing cluster Rolling restart of 12 nodes. Expected downtime: none.",
    );
    expect(res.text).toMatch(/<button type="submit" class="approve">\s*Approve\s*<\/button>/);
    expect(res.text).not.toContain("Approve and send");
    expect(res.text).not.toContain("<dt>To</dt>");

    const rejected = await decide(tokenOf("bob"), "reject", "reason=Not+during+the+sale").expect(200);
    expect(visible(rejected.text)).toContain(
      "Rejected by link:bob on March 4, 2026 at 9:00 AM UTC. Reason: Not during the sale",
    );
    expect(await h.prisma.approvalRequest.findUniqueOrThrow({ where: { id: created.id } })).toMatchObject({
      status: "rejected",
      decided_by: "link:bob",
      decided_by_key_id: null,
      comment: "Not during the sale",
    });
    const closed = await page(tokenOf("ada")).expect(410);
    expect(visible(closed.text)).toContain("Rejected by link:bob on March 4, 2026 at 9:00 AM GMT.");
  });
});

describe("racing decisions", () => {
  it("ten POSTs through two reviewers' links at once: one 200, nine 410, one decision", async () => {
    const backend = {
      keyId: h.adminKeyId,
      keyName: "backend key",
      scopes: ["admin" as const],
      agentKey: null,
    };
    const created = await createApprovalRequest(engineDeps(), backend, {
      title: "Delete the staging database",
      reviewers: ["ada", "bob"],
    });
    const links = await h.prisma.reviewLink.findMany({ where: { approval_id: created.id } });
    const tokens = links.map((link) => reviewToken(SECRET, link.id, link.nonce));
    allTokens.push(...tokens);
    const open = await page(tokens[0]!).expect(200);
    expect(visible(open.text)).toContain("Sender A backend service Importance High");

    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        decide(tokens[i % 2]!, i % 3 === 0 ? "reject" : "approve", `reason=try+${i}`),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 410, 410, 410, 410, 410, 410, 410, 410, 410]);
    const row = await h.prisma.approvalRequest.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.status).not.toBe("pending");
    // Every late answer names the one decision that was taken.
    const sentence = `${row.status === "approved" ? "Approved" : "Rejected"} by ${row.decided_by} on`;
    expect(row.decided_by).toMatch(/^link:(ada|bob)$/);
    for (const answer of answers) expect(visible(answer.text)).toContain(sentence);
  });
});

describe("the log", () => {
  it("never holds a review token: paths are written /review/[REDACTED]", async () => {
    const { tokens } = await hold();
    await page(tokens.ada).expect(200);
    await decide(tokens.ada, "reject", "reason=no").expect(200);
    await page(tokens.bob).expect(410);
    await waitForLog(h.logs, (e) => e.path === "/review/[REDACTED]/reject");
    await waitForLog(h.logs, (e) => e.path === "/review/[REDACTED]" && e.status === 410);
    const logged = JSON.stringify(h.logs.entries());
    expect(allTokens.length).toBeGreaterThan(30);
    for (const token of allTokens) expect(logged).not.toContain(token);
  });
});

/** What the engine's use cases need, on this harness and its clock. */
function engineDeps() {
  const logger = createLogger({ service: "review-pages-test", level: "error" });
  return { prisma: h.prisma, config: h.config, logger, now: () => clock, queues: h.queues };
}
