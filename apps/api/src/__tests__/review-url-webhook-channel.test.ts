import { CallbackReceiver, waitFor } from "@svc/testkit";
import { startInboxHarness, type InboxHarness } from "./inbox-fixtures";

// A reviewer whose notification goes to the `webhook` channel (a chat bot) gets a working review
// link in `data.review_url` (issue 27; docs/approvals.md "Reviewers are told"): every provider's
// view of a message, `data` included, holds live links, while the stored message and its reads
// keep only the placeholder. Real API on a port, real workers, a real HTTP receiver.

const HOOK_SECRET = "review-url-hook-secret";
let h: InboxHarness;
let receiver: CallbackReceiver;

beforeAll(async () => {
  receiver = await new CallbackReceiver(HOOK_SECRET).start();
  h = await startInboxHarness("review_url_webhook", {
    env: { HOOK_SECRET },
    config: {
      channels: { bot: { provider: "webhook", url: receiver.url, secret_env: "HOOK_SECRET" } },
    },
  });
  await h
    .as()
    .put("/v1/agents/deployer")
    .send({ name: "Deploy bot", categories: ["transactional"], approval: true, reviewers: ["rev-a"] })
    .expect([200, 201]);
  await h
    .as()
    .put("/v1/templates/deploy")
    .send({
      locales: { en: { title: "Deploy {{ data.version }}", body: "Version {{ data.version }} is live." } },
    })
    .expect([200, 201]);
  // The reviewer's template does not mention the link: it reaches the bot only through `data`.
  await h
    .as()
    .put("/v1/templates/review-needed")
    .send({ locales: { en: { title: "Review: {{ data.title }}", body: "{{ data.body }}" } } })
    .expect([200, 201]);
  await h
    .as()
    .put("/v1/rules/tell-reviewers")
    .send({
      event: "svc.approval_requested",
      template: "review-needed",
      category: "transactional",
      channels: ["bot"],
    })
    .expect([200, 201]);
  await h.person("rev-a", { locale: "en", addresses: [{ channel: "bot", value: "rev-a-chat" }] });
  await h.person("alice", { locale: "en", addresses: [{ channel: "bot", value: "alice-chat" }] });
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

it("the webhook channel hands the reviewer a live data.review_url that opens the review page", async () => {
  const agentKey = await h.keyWith(["messages:write", "messages:read"], "deployer");
  const held = await h
    .as(agentKey)
    .post("/v1/messages")
    .send({
      recipient: "alice",
      template: "deploy",
      category: "transactional",
      channels: ["bot"],
      data: { version: "4.5.6" },
    })
    .expect(202);
  expect(held.body.status).toBe("pending_approval");

  const post = await waitFor(() => receiver.posts.find((p) => p.verified) ?? null, {
    timeoutMs: 15_000,
    what: "the reviewer's notification at the receiver",
  });
  const body = JSON.parse(post.raw.toString("utf8")) as {
    id: string;
    to: string;
    data: Record<string, unknown>;
    content: { body: string };
  };
  expect(body.to).toBe("rev-a-chat");
  expect(body.data).toMatchObject({ kind: "message", message_id: held.body.id, title: "Deploy 4.5.6" });
  const reviewUrl = body.data.review_url as string;
  expect(reviewUrl).toMatch(new RegExp(`^${h.base}/review/[A-Za-z0-9_-]+$`));
  expect(post.raw.toString("utf8")).not.toContain("[[svc:");

  // The link works: the hosted review page of that message, for that reviewer.
  const page = await fetch(reviewUrl);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain("Deploy 4.5.6");
  expect(html).toContain("Version 4.5.6 is live.");

  // Reads of the stored notification hold no link: the placeholder stays (agent-facing reads none).
  const notice = await h.as().get(`/v1/messages/${body.id}`).expect(200);
  expect(notice.body.data.review_url).toBe("[[svc:review_url]]");
  expect(JSON.stringify(notice.body)).not.toContain("/review/");
});
