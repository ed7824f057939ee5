import { expireHeldItemsSweep } from "@svc/engine";
import {
  callbacksOf,
  noticesOf,
  startApprovalsHarness,
  T0,
  type ApprovalsHarness,
} from "./approval-fixtures";

// Approval requests (docs/approvals.md "Approval requests"): create (bounds, agent limits),
// read and list, approve/reject once, and `expired` as soon as the deadline passes.

let h: ApprovalsHarness;
beforeAll(async () => {
  h = await startApprovalsHarness("approval_requests", { agent: { max_importance: "normal" } });
});
afterAll(() => h?.close());
beforeEach(() => h.clock.set(T0));

const ask = (key: string, body: Record<string, unknown>) => h.as(key).post("/v1/approvals").send(body);

describe("POST /v1/approvals", () => {
  it("201 pending; defaults applied; an agent's importance lowered; one notice per reviewer with kind action", async () => {
    const res = await ask(h.agentKey, {
      title: "Refund A-1001?",
      reviewers: ["rev-a", "rev-b", "rev-a"],
      metadata: { order: "A-1001" },
    }).expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^apr_[0-9A-Z]{26}$/),
      status: "pending",
      agent: "bot",
      title: "Refund A-1001?",
      body: "",
      reviewers: ["rev-a", "rev-b"],
      // `high` by default, lowered to the agent's max_importance.
      importance: "normal",
      metadata: { order: "A-1001" },
      expires_at: new Date(T0.getTime() + 3600_000).toISOString(),
      decided_by: null,
      decided_by_key_id: null,
      comment: null,
      decided_at: null,
      session_grant: null,
      created_at: T0.toISOString(),
    });
    const notices = await noticesOf(h, res.body.id as string);
    expect(notices.map((n) => n.recipient_external_id)).toEqual(["rev-a", "rev-b"]);
    expect(notices[1]!.data).toEqual({
      kind: "action",
      approval_id: res.body.id,
      agent: "bot",
      agent_name: "Deploy bot",
      title: "Refund A-1001?",
      body: "",
      importance: "normal",
      expires_at: res.body.expires_at,
      review_url: "[[svc:review_url]]",
    });
  });

  it("a backend key names anyone and keeps its importance", async () => {
    const res = await ask(h.reviewerKey, {
      title: "Go?",
      reviewers: ["someone"],
      importance: "critical",
      expires_in_seconds: 60,
    }).expect(201);
    expect(res.body).toMatchObject({
      agent: null,
      importance: "critical",
      expires_at: new Date(T0.getTime() + 60_000).toISOString(),
    });
  });

  it("an agent key may name only its agent's reviewers (403)", async () => {
    const res = await ask(h.agentKey, { title: "x", reviewers: ["rev-a", "mallory", "eve"] }).expect(403);
    expect(res.body.detail).toBe(
      "agent 'bot' may only ask its own reviewers; not among them: 'mallory', 'eve'",
    );
  });

  it.each([
    ["an empty title", { title: "", reviewers: ["rev-a"] }, ["body", "title"]],
    ["a title over 200 characters", { title: "t".repeat(201), reviewers: ["rev-a"] }, ["body", "title"]],
    [
      "a body over 4,000 characters",
      { title: "x", body: "b".repeat(4001), reviewers: ["rev-a"] },
      ["body", "body"],
    ],
    ["no reviewers", { title: "x", reviewers: [] }, ["body", "reviewers"]],
    [
      "11 reviewers",
      { title: "x", reviewers: Array.from({ length: 11 }, (_, i) => `r${i}`) },
      ["body", "reviewers"],
    ],
    [
      "59 seconds",
      { title: "x", reviewers: ["rev-a"], expires_in_seconds: 59 },
      ["body", "expires_in_seconds"],
    ],
    [
      "7 days and a second",
      { title: "x", reviewers: ["rev-a"], expires_in_seconds: 604_801 },
      ["body", "expires_in_seconds"],
    ],
    [
      "metadata over 16 KB",
      { title: "x", reviewers: ["rev-a"], metadata: { blob: "m".repeat(16 * 1024) } },
      ["body", "metadata"],
    ],
    [
      "an unknown importance",
      { title: "x", reviewers: ["rev-a"], importance: "urgent" },
      ["body", "importance"],
    ],
    ["no title", { reviewers: ["rev-a"] }, ["body", "title"]],
  ])("422 naming the field: %s", async (_case, body, loc) => {
    const res = await ask(h.reviewerKey, body).expect(422);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
  });
});

describe("reading", () => {
  it("an agent key reads only its own requests; lists filter by status and agent", async () => {
    const mine = (await ask(h.agentKey, { title: "mine", reviewers: ["rev-a"] }).expect(201)).body;
    const theirs = (await ask(h.reviewerKey, { title: "theirs", reviewers: ["x"] }).expect(201)).body;
    await h.as(h.agentKey).get(`/v1/approvals/${mine.id}`).expect(200);
    const denied = await h.as(h.agentKey).get(`/v1/approvals/${theirs.id}`).expect(403);
    expect(denied.body.detail).toBe("agent keys may only read their own approval requests");
    // messages:read is enough to poll.
    const reader = await h.keyWith(["messages:read"]);
    await h.as(reader).get(`/v1/approvals/${theirs.id}`).expect(200);

    const agentList = await h.as(h.agentKey).get("/v1/approvals").expect(200);
    expect(agentList.body.items.every((a: { agent: string }) => a.agent === "bot")).toBe(true);
    const byAgent = await h.as().get("/v1/approvals?agent=bot&status=pending&limit=500").expect(200);
    expect(byAgent.body.items.map((a: { id: string }) => a.id)).toContain(mine.id);
    expect(byAgent.body.items.map((a: { id: string }) => a.id)).not.toContain(theirs.id);
    await h.as().get("/v1/approvals/apr_01J000000000000000000000ZZ").expect(404);
  });
});

describe("deciding", () => {
  it("approve: approved, decided_by, comment, decided_at; the callback goes out; a second decision is 409", async () => {
    const request = (
      await ask(h.agentKey, { title: "Ship it?", reviewers: ["rev-a"], metadata: { pr: 12 } }).expect(201)
    ).body;
    h.clock.advance(30);
    const res = await h
      .as(h.reviewerKey)
      .post(`/v1/approvals/${request.id}/approve`)
      .send({ reason: "ok by me" })
      .expect(200);
    expect(res.body).toMatchObject({
      status: "approved",
      decided_by: "test messages:write messages:read",
      decided_by_key_id: h.keyIdOf(h.reviewerKey),
      comment: "ok by me",
      decided_at: new Date(T0.getTime() + 30_000).toISOString(),
    });
    const again = await h.as(h.reviewerKey).post(`/v1/approvals/${request.id}/reject`).expect(409);
    expect(again.body).toMatchObject({
      title: "Invalid state",
      detail: "approval request is approved; only a pending request can be rejected",
    });
    const callbacks = await callbacksOf(h, request.id);
    expect(callbacks.map((c) => c.body)).toEqual([
      {
        type: "approval.decided",
        kind: "action",
        id: request.id,
        status: "approved",
        title: "Ship it?",
        agent: "bot",
        decided_by: "test messages:write messages:read",
        comment: "ok by me",
        decided_at: new Date(T0.getTime() + 30_000).toISOString(),
        metadata: { pr: 12 },
      },
    ]);
  });

  it("reject: rejected with the reason as comment", async () => {
    const request = (await ask(h.agentKey, { title: "Delete prod?", reviewers: ["rev-b"] }).expect(201)).body;
    const res = await h
      .as(h.reviewerKey)
      .post(`/v1/approvals/${request.id}/reject`)
      .send({ reason: "no" })
      .expect(200);
    expect(res.body).toMatchObject({
      status: "rejected",
      comment: "no",
      decided_by: "test messages:write messages:read",
    });
  });

  it("agent keys get 403 whatever the body", async () => {
    const request = (await ask(h.agentKey, { title: "x", reviewers: ["rev-a"] }).expect(201)).body;
    for (const body of [{}, { reason: ["not a string"] }])
      expect(
        (await h.as(h.agentKey).post(`/v1/approvals/${request.id}/approve`).send(body).expect(403)).body
          .detail,
      ).toBe("agent keys may not approve or reject");
  });
});

describe("pending → expired", () => {
  it("reads `expired` as soon as the deadline passes, before any sweep; a late decision is 409 `expired`", async () => {
    const request = (
      await ask(h.reviewerKey, { title: "Quick?", reviewers: ["a"], expires_in_seconds: 60 }).expect(201)
    ).body;
    h.clock.advance(60);
    const read = await h.as().get(`/v1/approvals/${request.id}`).expect(200);
    expect(read.body).toMatchObject({ status: "expired", decided_by: null, decided_at: request.expires_at });
    const listed = await h.as().get("/v1/approvals?status=expired&limit=500").expect(200);
    expect(listed.body.items.map((a: { id: string }) => a.id)).toContain(request.id);
    expect(await callbacksOf(h, request.id)).toEqual([]);

    const late = await h.as(h.reviewerKey).post(`/v1/approvals/${request.id}/approve`).expect(409);
    expect(late.body).toMatchObject({ title: "Invalid state", detail: "expired" });
    const stored = await h.prisma.approvalRequest.findUniqueOrThrow({ where: { id: request.id } });
    expect(stored.status).toBe("expired");
    expect((await callbacksOf(h, request.id)).map((c) => c.body)).toEqual([
      expect.objectContaining({
        status: "expired",
        decided_by: null,
        comment: null,
        decided_at: request.expires_at,
      }),
    ]);
  });

  it("the sweep writes what nobody decided, with its callback", async () => {
    const request = (
      await ask(h.reviewerKey, { title: "Later?", reviewers: ["a"], expires_in_seconds: 60 }).expect(201)
    ).body;
    h.clock.advance(61);
    const sweep = expireHeldItemsSweep({
      ...h,
      logger: { warn: () => undefined } as never,
      now: h.clock.now,
    });
    const result = await sweep.run({ sweep: sweep.name, now: h.clock.now() });
    expect(result).toMatchObject({ requests: expect.any(Number) });
    expect((await h.prisma.approvalRequest.findUniqueOrThrow({ where: { id: request.id } })).status).toBe(
      "expired",
    );
    expect((await callbacksOf(h, request.id)).map((c) => (c.body as { status: string }).status)).toEqual([
      "expired",
    ]);
  });
});
