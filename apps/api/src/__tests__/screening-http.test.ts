import { deliverySweeps, requeueScreeningSweep } from "@svc/engine";
import { newId } from "@svc/core";
import { Prisma } from "@svc/store";
import { webhookEventsIn, type FakeModelReply } from "@svc/testkit";
import {
  CALM,
  DATA_CANARY,
  MODEL,
  keysDeep,
  startScreeningBench,
  type ScreeningBench,
} from "./screening-fixtures";

// Screening with the `http` adapter end to end (docs/screening.md): agent messages sent through the
// API, the production worker wiring, a local decision-model server and a local webhook sink.

let hold: ScreeningBench; // on_error hold; a failing model is asked twice (worker.max_attempts 2)
let send: ScreeningBench; // on_error send; asked once (worker.max_attempts 1)

beforeAll(async () => {
  [hold, send] = await Promise.all([
    startScreeningBench("screening_http_hold", {
      adapter: "http",
      onError: "hold",
      maxAttempts: 2,
      apiKey: "test-screening-key",
    }),
    startScreeningBench("screening_http_send", { adapter: "http", onError: "send", maxAttempts: 1 }),
  ]);
}, 90_000);
afterAll(async () => {
  await Promise.all([hold?.close(), send?.close()]);
});

const verdict = (fields: Record<string, unknown>) => ({
  model: MODEL,
  lowered_from: null,
  risks: null,
  urgency: null,
  secret_rule: null,
  error: null,
  ...fields,
});

describe("outcomes", () => {
  test("passed: sent as it is; the verdict is stored; the model saw only what it may", async () => {
    const title = "Deploy 101 finished";
    const message = await hold.send(hold.agentKey, title, {
      data: { body: "See https://status.example.com/deploys/101.", note: DATA_CANARY },
    });
    const row = await hold.settled(message.id);
    expect(row).toMatchObject({ status: "sent", status_reason: null, importance: "normal" });
    expect(row.screening).toEqual(
      verdict({
        outcome: "passed",
        risks: { pressure: CALM.pressure, deception: CALM.deception, secret: CALM.secret },
        urgency: { importance: "normal", confidence: 0.75 },
      }),
    );
    const calls = hold.model.callsWith(title);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call!.headers.authorization).toBe("Bearer test-screening-key");
    expect(call!.body).toEqual({
      model: MODEL,
      sender: { agent: "bot", description: "Posts deploy results" },
      category: "transactional",
      importance: "normal",
      content: {
        title,
        body: "See https://status.example.com/deploys/101.",
        url: null,
        links: ["https://status.example.com/deploys/101"],
        actions: [],
      },
    });
    // Nothing about the person and nothing of `data` beyond what the template rendered.
    expect(call!.raw).not.toContain(DATA_CANARY);
    expect(call!.raw).not.toContain("alice");
    expect(keysDeep(call!.body)).not.toEqual(expect.arrayContaining(["recipient"]));
    expect(keysDeep(call!.body)).not.toEqual(expect.arrayContaining(["data"]));
  });

  test("lowered: the model is sure it is less urgent; importance written, lowered_from kept", async () => {
    const title = "Weekly digest of deploys";
    hold.answers.set(title, { ...CALM, urgency: { low: 0.75, normal: 0.125, high: 0.125, critical: 0 } });
    const message = await hold.send(hold.agentKey, title, { importance: "high" });
    const row = await hold.settled(message.id);
    expect(row).toMatchObject({ status: "sent", importance: "low", claimed_importance: "high" });
    expect(row.screening).toEqual(
      verdict({
        outcome: "lowered",
        lowered_from: "high",
        risks: { pressure: CALM.pressure, deception: CALM.deception, secret: CALM.secret },
        urgency: { importance: "low", confidence: 0.75 },
      }),
    );
  });

  test("never raised: the model reads it as critical, it goes out as claimed", async () => {
    const title = "Routine note, calm";
    hold.answers.set(title, { ...CALM, urgency: { low: 0, normal: 0, high: 0.125, critical: 0.875 } });
    const row = await hold.settled((await hold.send(hold.agentKey, title, { importance: "low" })).id);
    expect(row).toMatchObject({ status: "sent", importance: "low" });
    expect(row.screening).toMatchObject({ outcome: "passed", urgency: { importance: "critical" } });
  });

  test("held: risks at or above hold_above, in fixed order; reviewers told; approval TTL applies", async () => {
    const title = "Pay now or lose access";
    hold.answers.set(title, { ...CALM, pressure: 0.875, deception: 0.25, secret: 0.5 });
    const before = Date.now();
    const message = await hold.send(hold.agentKey, title);
    const row = await hold.settled(message.id);
    expect(row).toMatchObject({ status: "pending_approval", status_reason: "screening: pressure, secret" });
    expect(row.screening).toEqual(
      verdict({
        outcome: "held",
        risks: { pressure: 0.875, deception: 0.25, secret: 0.5 },
        urgency: { importance: "normal", confidence: 0.75 },
      }),
    );
    const deadline = new Date(row.approval_expires_at).getTime();
    expect(deadline).toBeGreaterThanOrEqual(before + 600_000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 600_000);
    // Backends hear it was queued, then held (docs/webhooks.md).
    expect(
      (await webhookEventsIn(hold.h.prisma, message.id)).map((e) => [e.type, e.snapshot?.status_reason]),
    ).toEqual([
      ["message.queued", null],
      ["message.pending_approval", "screening: pressure, secret"],
    ]);
    // Exactly as an approval hold: one svc.approval_requested event and one review link per reviewer.
    const notices = await hold.h.prisma.event.findMany({
      where: { name: "svc.approval_requested", recipient_external_id: { in: ["rev-a", "rev-b"] } },
    });
    const mine = notices.filter((e) => (e.data as { message_id?: string }).message_id === message.id);
    expect(mine.map((e) => e.recipient_external_id).sort()).toEqual(["rev-a", "rev-b"]);
    expect(mine[0]!.data).toMatchObject({
      kind: "message",
      agent: "bot",
      title,
      expires_at: row.approval_expires_at,
    });
    expect(await hold.h.prisma.reviewLink.count({ where: { message_id: message.id } })).toBe(2);
    expect(hold.sink.ids).not.toContain(message.id);
  });

  test("critical not confirmed with min_confidence: held", async () => {
    const title = "Critical: rotate everything";
    hold.answers.set(title, { ...CALM, urgency: { low: 0, normal: 0.25, high: 0.25, critical: 0.5 } });
    const row = await hold.settled((await hold.send(hold.agentKey, title, { importance: "critical" })).id);
    expect(row).toMatchObject({
      status: "pending_approval",
      status_reason: "screening: critical not confirmed",
    });
    expect(row.screening).toMatchObject({
      outcome: "held",
      urgency: { importance: "critical", confidence: 0.5 },
    });
  });

  test("critical confirmed: sent as critical", async () => {
    const title = "Critical: datacenter on fire";
    hold.answers.set(title, { ...CALM, urgency: { low: 0, normal: 0, high: 0.25, critical: 0.75 } });
    const row = await hold.settled((await hold.send(hold.agentKey, title, { importance: "critical" })).id);
    expect(row).toMatchObject({ status: "sent", importance: "critical" });
    expect(row.screening).toMatchObject({ outcome: "passed" });
  });

  test("the secret check holds before any model call and records only the rule", async () => {
    const title = "Deploy keys for the new box";
    const token = ["gh", "p_wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"].join("");
    const message = await hold.send(hold.agentKey, title, { data: { body: `Use ${token} to pull.` } });
    const row = await hold.settled(message.id);
    expect(row).toMatchObject({ status: "pending_approval", status_reason: "screening: secret" });
    expect(row.screening).toEqual(
      verdict({ model: null, outcome: "held", secret_rule: "@secretlint/secretlint-rule-github" }),
    );
    expect(hold.model.callsWith(title)).toHaveLength(0);
    expect(JSON.stringify(row.screening)).not.toContain(token.slice(4));
  });
});

describe("unavailable", () => {
  const cases: [string, FakeModelReply, string][] = [
    ["a 500", { status: 500, json: { error: "boom" } }, "http 500"],
    ["a timeout", { json: CALM, delayMs: 3_000 }, "timeout"],
    [
      "a malformed answer",
      { json: { ...CALM, urgency: "high" } },
      "malformed answer: urgency is not four probabilities",
    ],
  ];
  test.each(cases)(
    "%s: on_error hold holds after asking twice, on_error send sends after asking once",
    async (_name, reply, error) => {
      const title = `Model trouble: ${error}`;
      hold.answers.set(title, reply);
      send.answers.set(title, reply);
      const [held, sent] = await Promise.all([
        hold.send(hold.agentKey, title).then((m) => hold.settled(m.id)),
        send.send(send.agentKey, title).then((m) => send.settled(m.id)),
      ]);
      expect(held).toMatchObject({
        status: "pending_approval",
        status_reason: "screening: screening unavailable",
      });
      expect(held.screening).toEqual(verdict({ outcome: "unavailable", error }));
      expect(hold.model.callsWith(title)).toHaveLength(2);
      expect(sent).toMatchObject({ status: "sent", status_reason: null, importance: "normal" });
      expect(sent.screening).toEqual(verdict({ outcome: "unavailable", error }));
      expect(send.model.callsWith(title)).toHaveLength(1);
    },
  );

  test("a refused connection, under both on_error values", async () => {
    await Promise.all([hold.model.refuse(), send.model.refuse()]);
    try {
      const title = "Model down entirely";
      const [held, sent] = await Promise.all([
        hold.send(hold.agentKey, title).then((m) => hold.settled(m.id)),
        send.send(send.agentKey, title).then((m) => send.settled(m.id)),
      ]);
      const error = "connection failed (ECONNREFUSED)";
      expect(held).toMatchObject({
        status: "pending_approval",
        status_reason: "screening: screening unavailable",
      });
      expect(held.screening).toEqual(verdict({ outcome: "unavailable", error }));
      expect(sent).toMatchObject({ status: "sent" });
      expect(sent.screening).toEqual(verdict({ outcome: "unavailable", error }));
    } finally {
      await Promise.all([hold.model.resume(), send.model.resume()]);
    }
  });

  test("a model that fails once is asked again after a backoff, and its answer counts", async () => {
    const title = "Flaky model, answers the second time";
    hold.answers.set(title, (nth) => (nth === 1 ? { status: 503, json: {} } : CALM));
    const row = await hold.settled((await hold.send(hold.agentKey, title)).id);
    expect(row).toMatchObject({ status: "sent" });
    expect(row.screening).toMatchObject({ outcome: "passed", error: null });
    const [first, second] = hold.model.callsWith(title);
    // Half to all of the screening backoff base (2 s) apart.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_000);
  });
});

describe("screened once", () => {
  test("delivery retries reuse the stored verdict: the model is asked once", async () => {
    const title = "Provider hiccup after screening";
    hold.sink.script(title, [503, 200]);
    const row = await hold.settled((await hold.send(hold.agentKey, title)).id, 30_000);
    expect(row).toMatchObject({ status: "sent", screening: { outcome: "passed" } });
    expect(row.attempts).toHaveLength(2);
    expect(hold.model.callsWith(title)).toHaveLength(1);
  });

  test("a message held by screening and approved by a person is sent without a second screening", async () => {
    const title = "Act now, approved later";
    hold.answers.set(title, { ...CALM, pressure: 0.75 });
    const message = await hold.send(hold.agentKey, title);
    expect(await hold.settled(message.id)).toMatchObject({ status: "pending_approval" });
    await hold.h.as(hold.reviewerKey).post(`/v1/messages/${message.id}/approve`).send({}).expect(200);
    const row = await hold.settled(message.id);
    expect(row).toMatchObject({ status: "sent", status_reason: null, screening: { outcome: "held" } });
    expect(row.reviewed_at).not.toBeNull();
    expect(hold.model.callsWith(title)).toHaveLength(1);
  });

  test("a message its agent's approval held is never screened once a person approved it", async () => {
    const title = "Careful bot asks first";
    const message = await hold.send(hold.carefulAgentKey, title);
    expect(await hold.settled(message.id)).toMatchObject({ status: "pending_approval", status_reason: null });
    await hold.h.as(hold.reviewerKey).post(`/v1/messages/${message.id}/approve`).send({}).expect(200);
    expect(await hold.settled(message.id)).toMatchObject({ status: "sent", screening: null });
    expect(hold.model.callsWith(title)).toHaveLength(0);
  });

  test("a backend's message never reaches the model", async () => {
    const title = "Backend receipt 2002";
    const row = await hold.settled((await hold.send(hold.backendKey, title)).id);
    expect(row).toMatchObject({ status: "sent", agent: null, screening: null });
    expect(hold.model.callsWith(title)).toHaveLength(0);
  });
});

describe("recovery", () => {
  /** A row as a crash leaves it: handed to screening (sending, no lease), its job never enqueued. */
  async function waitingRow(title: string, change: { lease_until?: Date } = {}) {
    const alice = await hold.h.prisma.recipient.findUniqueOrThrow({ where: { external_id: "alice" } });
    return hold.h.prisma.message.create({
      data: {
        id: newId("message"),
        status: "sending",
        recipient_id: alice.id,
        recipient_external_id: "alice",
        sender: "bot",
        agent_key: "bot",
        category: "transactional",
        template: "note",
        importance: "normal",
        claimed_importance: "normal",
        channels: ["hook"],
        content: {
          title,
          body: "b",
          url: null,
          thread: null,
          locale: "en",
          channel: "hook",
        } as Prisma.InputJsonValue,
        send_at: new Date(Date.now() - 60_000),
        generation: 1,
        lease_until: change.lease_until ?? null,
        link_nonce: "nonce-recovery",
        updated_at: new Date(Date.now() - 60_000),
      },
    });
  }

  test("a lost screening job: requeue-screening enqueues it again, and it is screened and sent", async () => {
    const title = "Lost between hand-off and enqueue";
    const row = await waitingRow(title);
    const sweep = requeueScreeningSweep({ prisma: hold.h.prisma, queues: hold.h.queues });
    expect(sweep).toMatchObject({ name: "requeue-screening", every: 10_000 });
    await sweep.run({ sweep: sweep.name, now: new Date() });
    const settled = await hold.settled(row.id);
    expect(settled).toMatchObject({ status: "sent", screening: { outcome: "passed" } });
    expect(hold.model.callsWith(title)).toHaveLength(1);
    // Run again while nothing waits: nothing is added.
    expect(await sweep.run({ sweep: sweep.name, now: new Date() })).toMatchObject({ found: 0 });
  });

  test("a worker that died mid-screening: its lapsed lease comes back through delivery", async () => {
    const title = "Worker died while asking the model";
    const row = await waitingRow(title, { lease_until: new Date(Date.now() - 1_000) });
    const reclaim = deliverySweeps({ prisma: hold.h.prisma, queues: hold.h.queues }).find(
      (s) => s.name === "reclaim-leases",
    )!;
    await reclaim.run({ sweep: reclaim.name, now: new Date() });
    expect(await hold.settled(row.id)).toMatchObject({ status: "sent", screening: { outcome: "passed" } });
    expect(hold.model.callsWith(title)).toHaveLength(1);
  });

  test("a screening job fills its batch with other waiting messages (their own jobs find them taken)", async () => {
    const title = "Waiting without a job of its own";
    const row = await waitingRow(title);
    await hold.settled((await hold.send(hold.agentKey, "Carries the other one along")).id);
    expect(await hold.settled(row.id)).toMatchObject({ status: "sent", screening: { outcome: "passed" } });
    expect(hold.model.callsWith(title)).toHaveLength(1);
  });

  test("two jobs for one waiting message at once (a batch and the sweep's): one model call", async () => {
    const title = "Raced by two jobs";
    hold.answers.set(title, { json: CALM, delayMs: 200 });
    const row = await waitingRow(title);
    const payload = { messageId: row.id, generation: row.generation };
    await Promise.all([
      hold.h.queues.enqueue("screen-message", payload),
      hold.h.queues.enqueue("screen-messages", {
        messages: [payload, { messageId: "msg_none", generation: 0 }],
      }),
    ]);
    expect(await hold.settled(row.id)).toMatchObject({ status: "sent" });
    expect(hold.model.callsWith(title)).toHaveLength(1);
  });
});
