import { logprobCompletion, type FakeModelReply } from "@svc/testkit";
import {
  CALM,
  DATA_CANARY,
  MODEL,
  keysDeep,
  startScreeningBench,
  type ScreeningBench,
  type ScreeningVerdict,
} from "./screening-fixtures";

// Screening with the `openai` adapter end to end (docs/screening.md "The openai adapter"): a local
// OpenAI-compatible server answers each of the four one-token questions with log-probabilities.

let hold: ScreeningBench; // on_error hold
let send: ScreeningBench; // on_error send

beforeAll(async () => {
  [hold, send] = await Promise.all([
    startScreeningBench("screening_openai_hold", {
      adapter: "openai",
      onError: "hold",
      maxAttempts: 1,
      apiKey: "test-openai-key",
    }),
    startScreeningBench("screening_openai_send", { adapter: "openai", onError: "send", maxAttempts: 1 }),
  ]);
}, 90_000);
afterAll(async () => {
  await Promise.all([hold?.close(), send?.close()]);
});

/** The verdict's numbers come back through exp(log p): compare them to 9 places. */
function expectVerdict(actual: ScreeningVerdict | null, expected: ScreeningVerdict) {
  const { risks, urgency, ...rest } = expected;
  expect(actual).toMatchObject({ model: MODEL, lowered_from: null, secret_rule: null, error: null, ...rest });
  for (const risk of ["pressure", "deception", "secret"])
    expect(actual!.risks[risk]).toBeCloseTo(risks[risk]!, 9);
  expect(actual!.urgency.importance).toBe(urgency.importance);
  expect(actual!.urgency.confidence).toBeCloseTo(urgency.confidence, 9);
}

describe("outcomes", () => {
  test("passed: four one-token questions, probabilities read from the log-probabilities", async () => {
    const title = "Release 7 shipped";
    const message = await hold.send(hold.agentKey, title, { data: { note: DATA_CANARY } });
    const row = await hold.settled(message.id);
    expect(row).toMatchObject({ status: "sent", importance: "normal" });
    expectVerdict(row.screening, {
      outcome: "passed",
      risks: { pressure: CALM.pressure, deception: CALM.deception, secret: CALM.secret },
      urgency: { importance: "normal", confidence: 0.75 },
    });

    const calls = hold.model.callsWith(title);
    expect(calls).toHaveLength(4);
    for (const call of calls) {
      expect(call.path).toBe("/v1/chat/completions");
      expect(call.headers.authorization).toBe("Bearer test-openai-key");
      expect(call.body).toMatchObject({
        model: MODEL,
        max_tokens: 1,
        temperature: 0,
        logprobs: true,
        top_logprobs: 10,
      });
      expect(call.body.messages?.map((m) => m.role)).toEqual(["system", "user"]);
      expect(call.raw).not.toContain(DATA_CANARY);
      expect(call.raw).not.toContain("alice");
    }
    // The message, as the user turn shows it: the same fields the http adapter posts.
    const shown = calls[0]!.body.messages![1]!.content;
    const json = JSON.parse(shown.slice(shown.indexOf("{"), shown.lastIndexOf("}") + 1));
    expect(json).toEqual({
      sender: { agent: "bot", description: "Posts deploy results" },
      category: "transactional",
      importance: "normal",
      content: { title, body: `Body of ${title}`, url: null, links: [], actions: [] },
    });
    expect(keysDeep(json)).not.toEqual(expect.arrayContaining(["recipient"]));
    const questions = calls.map((c) => c.body.messages![1]!.content.split("Question: ")[1]);
    expect(questions.map((q) => q!.slice(0, 24)).sort()).toEqual([
      "Does this notification e",
      "Does this notification l",
      "Does this notification p",
      "How urgent is this notif",
    ]);
  });

  test("lowered", async () => {
    const title = "Your weekly summary is ready";
    hold.answers.set(title, { ...CALM, urgency: { low: 0.8, normal: 0.1, high: 0.1, critical: 0 } });
    const row = await hold.settled((await hold.send(hold.agentKey, title, { importance: "high" })).id);
    expect(row).toMatchObject({ status: "sent", importance: "low", claimed_importance: "high" });
    expectVerdict(row.screening, {
      outcome: "lowered",
      lowered_from: "high",
      risks: { pressure: CALM.pressure, deception: CALM.deception, secret: CALM.secret },
      urgency: { importance: "low", confidence: 0.8 },
    });
  });

  test("held: deception", async () => {
    const title = "Confirm your bank password here";
    hold.answers.set(title, { ...CALM, deception: 0.9 });
    const row = await hold.settled((await hold.send(hold.agentKey, title)).id);
    expect(row).toMatchObject({ status: "pending_approval", status_reason: "screening: deception" });
    expectVerdict(row.screening, {
      outcome: "held",
      risks: { pressure: CALM.pressure, deception: 0.9, secret: CALM.secret },
      urgency: { importance: "normal", confidence: 0.75 },
    });
  });

  test("critical not confirmed: held", async () => {
    const title = "CRITICAL lunch menu";
    hold.answers.set(title, { ...CALM, urgency: { low: 0.7, normal: 0.2, high: 0.05, critical: 0.05 } });
    const row = await hold.settled((await hold.send(hold.agentKey, title, { importance: "critical" })).id);
    expect(row).toMatchObject({
      status: "pending_approval",
      status_reason: "screening: critical not confirmed",
    });
    expect(row.screening).toMatchObject({ outcome: "held", urgency: { importance: "low" } });
  });
});

describe("unavailable, under both on_error values", () => {
  const noLogprobs = { json: { model: MODEL, choices: [{ index: 0, message: { content: "yes" } }] } };
  const notYesNo = { json: logprobCompletion(MODEL, { maybe: 0.6, perhaps: 0.4 }) };
  test.each<[string, FakeModelReply, string]>([
    ["a 500", { status: 500, json: {} }, "http 500"],
    ["a timeout", { json: {}, delayMs: 3_000 }, "timeout"],
    ["an answer without log-probabilities", noLogprobs, "malformed answer: no log-probabilities"],
    ["tokens that are not the answers asked for", notYesNo, "malformed answer: urgency is not a digit 1-4"],
  ])("%s", async (_name, reply, error) => {
    const title = `OpenAI trouble: ${error}`;
    hold.answers.set(title, reply);
    send.answers.set(title, reply);
    const [held, sent] = await Promise.all([
      hold.send(hold.agentKey, title).then((m) => hold.settled(m.id)),
      send.send(send.agentKey, title).then((m) => send.settled(m.id)),
    ]);
    const unavailable = {
      model: MODEL,
      outcome: "unavailable",
      lowered_from: null,
      risks: null,
      urgency: null,
    };
    expect(held).toMatchObject({
      status: "pending_approval",
      status_reason: "screening: screening unavailable",
    });
    expect(held.screening).toEqual({ ...unavailable, secret_rule: null, error });
    expect(sent).toMatchObject({ status: "sent", status_reason: null });
    expect(sent.screening).toEqual({ ...unavailable, secret_rule: null, error });
  });

  test("a refused connection", async () => {
    await Promise.all([hold.model.refuse(), send.model.refuse()]);
    try {
      const title = "OpenAI endpoint down";
      const [held, sent] = await Promise.all([
        hold.send(hold.agentKey, title).then((m) => hold.settled(m.id)),
        send.send(send.agentKey, title).then((m) => send.settled(m.id)),
      ]);
      expect(held).toMatchObject({
        status: "pending_approval",
        status_reason: "screening: screening unavailable",
        screening: { outcome: "unavailable", error: "connection failed (ECONNREFUSED)" },
      });
      expect(sent).toMatchObject({
        status: "sent",
        screening: { outcome: "unavailable", error: "connection failed (ECONNREFUSED)" },
      });
    } finally {
      await Promise.all([hold.model.resume(), send.model.resume()]);
    }
  });
});
