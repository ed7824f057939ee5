import {
  digestConfig,
  digestPolicy,
  makeDigestRule,
  makeRecipient,
  makeTemplate,
  NOW,
  openDigestOf,
  startDigestWorld,
  type World,
} from "./digest-fixtures";
import { completion, startFakeOpenAi, type FakeOpenAi, type Reply } from "./fake-openai";

// Smart mode (docs/digests.md) against a local OpenAI-compatible server: the template renders first,
// the AI rewrite is accepted only when every number and link survives, and any failure falls
// back to the template text. Only summary_fields (plus the template's ai_attributes) are shared.

let w: World;
let ai: FakeOpenAi;
let n = 0;

const BASELINE = {
  title: "2 new comments",
  body: "ann: Looks good\nbob: Ship it\nOpen https://x.example/t/t1",
};

beforeAll(async () => {
  ai = await startFakeOpenAi();
  const config = digestConfig(
    { ai: { enabled: true, base_url: ai.baseUrl, model: "test-model", timeout_ms: 300, max_tokens: 120 } },
    { SVC_AI_API_KEY: "ai-key" },
  );
  w = await startDigestWorld("digests_ai", config);
  await makeTemplate(
    w.prisma,
    "comments",
    {
      title: "{{ data.count }} new comments",
      body: "{% for e in data.events %}{{ e.author }}: {{ e.text }}\n{% endfor %}Open https://x.example/t/{{ data.key }}",
      url: "https://x.example/t/{{ data.key }}",
    },
    ["text"],
  );
});
afterAll(async () => {
  await w.stop();
  await ai.close();
});

/** Person `key` with a smart digest rule (grouped by thread, sharing only the author) on `event`; the clock at NOW. */
async function makeSmartDigestRule(key: string, event: string) {
  await makeRecipient(w.prisma, key);
  await makeDigestRule(w.prisma, {
    key,
    event,
    template: "comments",
    digest: digestPolicy({ key: "{{ data.thread }}", summarize: true, summary_fields: ["author"] }),
  });
  w.clock.set(NOW);
}

/** A smart digest with two comments, closed with the server answering `reply`; returns the message. */
async function closeSmartDigest(reply: Reply) {
  const key = `smart${++n}`;
  await makeSmartDigestRule(key, `c.${key}`);
  await w.event(`c.${key}`, key, {
    thread: "t1",
    author: "ann",
    text: "Looks good",
    email: "ann@corp.example",
    secret_token: "s3cr3t",
  });
  await w.event(`c.${key}`, key, {
    thread: "t1",
    author: "bob",
    text: "Ship it",
    email: "bob@corp.example",
    secret_token: "hunter2",
  });
  const digest = await openDigestOf(w.prisma, key);
  ai.answer(reply);
  ai.received.length = 0;
  w.clock.set(digest.closes_at);
  const result = await w.closeDigest(digest.id);
  if (result.status !== "sent") throw new Error(`not sent: ${JSON.stringify(result)}`);
  return w.prisma.message.findUniqueOrThrow({ where: { id: result.messageId } });
}

it("an accepted rewrite replaces title and body; the url stays the template's; content.summary is ai", async () => {
  const rewrite = { title: "2 new comments on t1", body: "ann and bob replied. Open https://x.example/t/t1" };
  const message = await closeSmartDigest({ json: completion(rewrite) });
  expect(message.content).toMatchObject({ ...rewrite, url: "https://x.example/t/t1", summary: "ai" });
  expect(message.content).not.toHaveProperty("summary_fallback");
  expect(message.status).toBe("queued");

  expect(ai.received).toHaveLength(1);
  const [request] = ai.received;
  expect(request!.path).toBe("/v1/chat/completions");
  expect(request!.headers.authorization).toBe("Bearer ai-key");
  expect([request!.body.model, request!.body.max_tokens]).toEqual(["test-model", 120]);
  expect(Object.keys(request!.body).sort()).toEqual(["max_tokens", "messages", "model"]);
});

it("a fenced JSON answer is accepted too", async () => {
  const message = await closeSmartDigest({
    json: completion('```json\n{"title": "2 new comments", "body": "See https://x.example/t/t1"}\n```'),
  });
  expect(message.content).toMatchObject({
    title: "2 new comments",
    body: "See https://x.example/t/t1",
    summary: "ai",
  });
});

it.each<[string, Reply, string]>([
  [
    "a rewrite that drops a number",
    { json: completion({ title: "New comments", body: "Open https://x.example/t/t1" }) },
    "lost 2",
  ],
  [
    "a rewrite that changes a link",
    { json: completion({ title: "2 new comments", body: "Open https://x.example/t/other" }) },
    "lost https://x.example/t/t1",
  ],
  [
    "a timeout",
    { json: completion({ title: "2 new comments", body: "https://x.example/t/t1" }), delayMs: 1500 },
    "timeout",
  ],
  [
    "an exhausted token budget",
    { json: completion('{"title": "2 new comm', "length") },
    "token budget exhausted",
  ],
  ["a refusal", { json: completion(null, "stop", { refusal: "I cannot help with that." }) }, "refused"],
  ["an empty answer", { json: completion("") }, "empty answer"],
  [
    "an answer that is not the JSON asked for",
    { json: completion("Two new comments, see https://x.example/t/t1") },
    "invalid answer",
  ],
  ["a server error", { status: 500, json: { error: { message: "boom" } } }, "http 500"],
  [
    "an answer holding U+0000 (no message could store it)",
    { json: completion({ title: "2 new\u0000 comments", body: "https://x.example/t/t1" }) },
    "invalid answer",
  ],
])("%s falls back to the template text", async (_name, reply, reason) => {
  const message = await closeSmartDigest(reply);
  expect(message.content).toMatchObject({ ...BASELINE, summary: "template", summary_fallback: reason });
  expect(message.status).toBe("queued");
});

it("only summary_fields and the template's ai_attributes of each event reach the AI, nothing about the person", async () => {
  await closeSmartDigest({ json: completion({ title: "2 new comments", body: "https://x.example/t/t1" }) });
  const { messages } = ai.received[0]!.body;
  expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
  const context = JSON.parse(messages[1]!.content) as { draft: unknown; updates: unknown[] };
  expect(context).toEqual({
    draft: BASELINE,
    updates: [
      { author: "ann", text: "Looks good" },
      { author: "bob", text: "Ship it" },
    ],
  });
  const raw = JSON.stringify(ai.received[0]!.body);
  for (const hidden of ["corp.example", "s3cr3t", "hunter2", "secret_token", "thread", "smart"])
    expect(raw).not.toContain(hidden);
});

it("with ai switched off after the rule was written, the template text is sent", async () => {
  const key = "smart-off";
  await makeSmartDigestRule(key, "c.off");
  await w.event("c.off", key, { thread: "t1", author: "ann", text: "Looks good" });
  const digest = await openDigestOf(w.prisma, key);
  ai.received.length = 0;
  w.clock.set(digest.closes_at);
  const result = await w.closeDigest(digest.id, digestConfig());
  const message = await w.prisma.message.findUniqueOrThrow({
    where: { id: (result as { messageId: string }).messageId },
  });
  expect(message.content).toMatchObject({
    title: "1 new comments",
    summary: "template",
    summary_fallback: "ai disabled",
  });
  expect(ai.received).toHaveLength(0);
});

it("an event arriving while the summary is written opens a fresh digest (the closing one is frozen)", async () => {
  const key = "smart-frozen";
  await makeSmartDigestRule(key, "c.frozen");
  await w.event("c.frozen", key, { thread: "t1", author: "ann", text: "Looks good" });
  const digest = await openDigestOf(w.prisma, key);
  ai.answer({ json: completion({ title: "1 new comments", body: "https://x.example/t/t1" }), delayMs: 150 });
  w.clock.set(digest.closes_at);
  const closing = w.closeDigest(digest.id);
  await new Promise((resolve) => setTimeout(resolve, 60));
  await w.event("c.frozen", key, { thread: "t1", author: "bob", text: "late" });
  expect((await closing).status).toBe("sent");

  const digests = await w.prisma.digest.findMany({
    where: { rule_key: key },
    orderBy: { created_at: "asc" },
  });
  expect(digests.map((d) => [d.status, d.count])).toEqual([
    ["sent", 1],
    ["open", 1],
  ]);
});

it("on an e-mail (smtp) channel the rewrite's body is HTML-escaped in that channel's variant", async () => {
  const key = "smart-mail";
  const person = await makeRecipient(w.prisma, key);
  await w.prisma.address.create({
    data: { recipient_id: person.id, channel: "mail", value: "m@example.com" },
  });
  await makeDigestRule(w.prisma, {
    key,
    event: "c.mail",
    template: "comments",
    channels: ["email", "mail"],
    digest: digestPolicy({ key: "{{ data.thread }}", summarize: true, summary_fields: ["author"] }),
  });
  w.clock.set(NOW);
  await w.event("c.mail", key, { thread: "t1", author: "ann", text: "Looks good" });
  const digest = await openDigestOf(w.prisma, key);
  const rewrite = { title: "1 new comment", body: "ann <ann> says: Looks good & https://x.example/t/t1" };
  ai.answer({ json: completion(rewrite) });
  w.clock.set(digest.closes_at);
  const withMail = digestConfig({
    ai: { enabled: true, base_url: ai.baseUrl, model: "test-model", timeout_ms: 300, max_tokens: 120 },
    channels: {
      email: { provider: "console" },
      mail: { provider: "smtp", host: "mail.internal", from: "svc@example.com" },
    },
  });
  const result = await w.closeDigest(digest.id, withMail);
  const message = await w.prisma.message.findUniqueOrThrow({
    where: { id: (result as { messageId: string }).messageId },
  });
  expect(message.content).toEqual({
    ...rewrite,
    url: "https://x.example/t/t1",
    thread: null,
    locale: "en",
    channel: "email",
    summary: "ai",
    variants: {
      mail: {
        title: rewrite.title,
        body: "ann &lt;ann&gt; says: Looks good &amp; https://x.example/t/t1",
        url: "https://x.example/t/t1",
        thread: null,
      },
    },
  });
});
