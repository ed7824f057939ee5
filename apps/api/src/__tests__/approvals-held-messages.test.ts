import { expireHeldItemsSweep } from "@svc/engine";
import {
  callbacksOf,
  heldMessage,
  ingest,
  jobsOf,
  noticesOf,
  startApprovalsHarness,
  T0,
  type ApprovalsHarness,
} from "./approval-fixtures";

// Messages held for approval (docs/approvals.md "Held messages"): every transition that starts or
// ends at `pending_approval`, with exact statuses, reasons and fields; reviewers told by ordinary
// rules; agent keys never decide.

let h: ApprovalsHarness;
beforeAll(async () => {
  h = await startApprovalsHarness("approvals_held");
  // Reviewers are told through an ordinary rule on the exact name; wildcards never see svc events.
  await h
    .as()
    .put("/v1/templates/review-needed")
    .send({
      locales: { en: { title: "Review: {{ data.title }}", body: "{{ data.body }} {{ data.review_url }}" } },
    });
  await h
    .as()
    .put("/v1/rules/tell-reviewers")
    .send({
      event: "svc.approval_requested",
      template: "review-needed",
      category: "transactional",
      channels: ["console"],
    });
  await h
    .as()
    .put("/v1/rules/everything")
    .send({ event: "*", template: "deploy", category: "transactional", channels: ["console"] });
  await h
    .as()
    .put("/v1/rules/all-svc")
    .send({ event: "svc.*", template: "deploy", category: "transactional", channels: ["console"] });
  await h
    .as()
    .put("/v1/recipients/rev-a")
    .send({ addresses: [{ channel: "console", value: "rev-a@example.com" }] });
});
afterAll(() => h?.close());
beforeEach(() => h.clock.set(T0));

describe("composition → pending_approval", () => {
  it("holds the agent's message: no send time job, the approval deadline set, reviewers told once each", async () => {
    const held = await heldMessage(h, "2.0.0");
    expect(held).toMatchObject({
      status: "pending_approval",
      status_reason: null,
      agent: "bot",
      approval_expires_at: new Date(T0.getTime() + 600_000).toISOString(),
      reviewed_by: null,
      reviewed_by_key_id: null,
      reviewed_at: null,
    });
    expect((await jobsOf(h, "delivery")).filter((j) => j.data.messageId === held.id)).toEqual([]);

    const notices = await noticesOf(h, held.id);
    expect(notices.map((e) => [e.recipient_external_id, e.source, e.status])).toEqual([
      ["rev-a", "svc", "pending"],
      ["rev-b", "svc", "pending"],
    ]);
    expect(notices[0]!.data).toEqual({
      kind: "message",
      message_id: held.id,
      agent: "bot",
      agent_name: "Deploy bot",
      recipient: "alice",
      category: "transactional",
      title: "Deploy 2.0.0",
      body: "Version 2.0.0 is live.",
      importance: "normal",
      expires_at: held.approval_expires_at,
      review_url: "[[svc:review_url]]",
    });
    // One ingest job for both notices, enqueued after the commit.
    const ingestJobs = await jobsOf(h, "ingest");
    expect(ingestJobs).toContainEqual(
      expect.objectContaining({ name: "ingest-events", data: { eventIds: notices.map((e) => e.id) } }),
    );
    // Exact-name rules see the notice; `*` and `svc.*` do not.
    const result = await ingest(h, notices[0]!.id);
    expect(result).toMatchObject({
      status: "processed",
      outcomes: [{ rule: "tell-reviewers", matched: true, status: "queued" }],
    });
  });

  it("cuts the notice body to 500 characters", async () => {
    await h
      .as()
      .put("/v1/templates/long")
      .send({ locales: { en: { title: "Long", body: "é".repeat(700) } } });
    const res = await h
      .as(h.agentKey)
      .post("/v1/messages")
      .send({ recipient: "alice", template: "long", category: "transactional", channels: ["console"] })
      .expect(202);
    const [notice] = await noticesOf(h, res.body.id as string);
    expect((notice!.data as { body: string }).body).toBe("é".repeat(500));
  });

  it("counts against the agent's budget while it waits", async () => {
    await h
      .as()
      .patch("/v1/agents/bot")
      .send({ frequency_caps: [{ period: "P1D", limit: 1 }] });
    try {
      await h
        .as()
        .put("/v1/recipients/budget-person")
        .send({ addresses: [{ channel: "console", value: "b@example.com" }] });
      const send = () =>
        h
          .as(h.agentKey)
          .post("/v1/messages")
          .send({
            recipient: "budget-person",
            template: "deploy",
            category: "transactional",
            channels: ["console"],
          })
          .expect(202);
      expect((await send()).body.status).toBe("pending_approval");
      expect((await send()).body).toMatchObject({
        status: "suppressed",
        status_reason: "agent_budget: 1 per P1D",
      });
    } finally {
      await h
        .as()
        .patch("/v1/agents/bot")
        .send({ frequency_caps: [{ period: "P1D", limit: 50 }] });
    }
  });
});

describe("pending_approval → approve", () => {
  it("before the deadline: queued, policy checked again, reviewed_by/_key_id/_at set, status_reason null, delivery enqueued", async () => {
    const held = await heldMessage(h);
    h.clock.advance(120);
    const res = await h
      .as(h.reviewerKey)
      .post(`/v1/messages/${held.id}/approve`)
      .send({ reason: "looks right" })
      .expect(200);
    expect(res.body).toMatchObject({
      id: held.id,
      status: "queued",
      status_reason: null,
      reviewed_by: "test messages:write messages:read",
      reviewed_by_key_id: h.keyIdOf(h.reviewerKey),
      reviewed_at: new Date(T0.getTime() + 120_000).toISOString(),
      send_at: new Date(T0.getTime() + 120_000).toISOString(),
    });
    const row = await h.prisma.message.findUniqueOrThrow({ where: { id: held.id } });
    expect((await jobsOf(h, "delivery")).map((j) => j.data)).toContainEqual({
      messageId: held.id,
      generation: row.generation,
    });
    expect(row.generation).toBe(1);
    const [callback] = await callbacksOf(h, held.id);
    expect(callback!.body).toEqual({
      type: "approval.decided",
      kind: "message",
      id: held.id,
      status: "approved",
      title: "Deploy 1.2.3",
      agent: "bot",
      decided_by: "test messages:write messages:read",
      comment: "looks right",
      decided_at: new Date(T0.getTime() + 120_000).toISOString(),
      metadata: { recipient: "alice", category: "transactional", status: "queued" },
    });
  });

  it("the re-check applies the policy as it is now: an unsubscribe since the hold suppresses it", async () => {
    await h
      .as()
      .put("/v1/recipients/carol")
      .send({ addresses: [{ channel: "console", value: "c@example.com" }] });
    await h.as().put("/v1/categories/updates").send({ description: "Updates" });
    await h
      .as()
      .patch("/v1/agents/bot")
      .send({ categories: ["transactional", "updates"] });
    const res = await h
      .as(h.agentKey)
      .post("/v1/messages")
      .send({ recipient: "carol", template: "deploy", category: "updates", channels: ["console"] })
      .expect(202);
    await h
      .as()
      .put("/v1/recipients/carol/preferences")
      .send({ unsubscribed_categories: ["updates"] })
      .expect(200);
    const approved = await h.as(h.reviewerKey).post(`/v1/messages/${res.body.id}/approve`).expect(200);
    expect(approved.body).toMatchObject({
      status: "suppressed",
      status_reason: "unsubscribed",
      reviewed_by: "test messages:write messages:read",
    });
  });

  it("a message that is not waiting is 409 Invalid state", async () => {
    const held = await heldMessage(h);
    await h.as(h.reviewerKey).post(`/v1/messages/${held.id}/approve`).expect(200);
    const again = await h.as(h.reviewerKey).post(`/v1/messages/${held.id}/approve`).expect(409);
    expect(again.body).toMatchObject({
      title: "Invalid state",
      status: 409,
      detail: "message is queued; only a message waiting for approval (pending_approval) can be approved",
    });
    const reject = await h.as(h.reviewerKey).post(`/v1/messages/${held.id}/reject`).expect(409);
    expect(reject.body.detail).toBe(
      "message is queued; only a message waiting for approval (pending_approval) can be rejected",
    );
    expect(await callbacksOf(h, held.id)).toHaveLength(1);
  });

  it("after the deadline: 409 with detail `expired`, and the message is suppressed `expired`", async () => {
    const held = await heldMessage(h);
    h.clock.advance(600);
    const res = await h.as(h.reviewerKey).post(`/v1/messages/${held.id}/approve`).expect(409);
    expect(res.body).toMatchObject({ title: "Invalid state", status: 409, detail: "expired" });
    const message = await h.as().get(`/v1/messages/${held.id}`).expect(200);
    expect(message.body).toMatchObject({ status: "suppressed", status_reason: "expired", reviewed_by: null });
    const [callback] = await callbacksOf(h, held.id);
    expect(callback!.body).toMatchObject({
      status: "expired",
      decided_by: null,
      comment: null,
      decided_at: held.approval_expires_at,
    });
  });
});

describe("pending_approval → reject", () => {
  it("cancelled with `rejected: <reason>`, reviewer recorded", async () => {
    const held = await heldMessage(h);
    const res = await h
      .as(h.reviewerKey)
      .post(`/v1/messages/${held.id}/reject`)
      .send({ reason: "wrong channel" })
      .expect(200);
    expect(res.body).toMatchObject({
      status: "cancelled",
      status_reason: "rejected: wrong channel",
      reviewed_by: "test messages:write messages:read",
      reviewed_by_key_id: h.keyIdOf(h.reviewerKey),
      reviewed_at: T0.toISOString(),
    });
    const [callback] = await callbacksOf(h, held.id);
    expect(callback!.body).toMatchObject({ status: "rejected", comment: "wrong channel" });
  });

  it("without a reason: `rejected`", async () => {
    const held = await heldMessage(h);
    const res = await h.as(h.reviewerKey).post(`/v1/messages/${held.id}/reject`).expect(200);
    expect(res.body).toMatchObject({ status: "cancelled", status_reason: "rejected" });
  });
});

describe("pending_approval left until its deadline", () => {
  it("the sweep suppresses it as `expired` and records the callback", async () => {
    const held = await heldMessage(h);
    h.clock.advance(599);
    const sweep = expireHeldItemsSweep({ ...h, logger: quietLogger, now: h.clock.now });
    await sweep.run({ sweep: sweep.name, now: h.clock.now() });
    expect((await h.as().get(`/v1/messages/${held.id}`)).body.status).toBe("pending_approval");
    h.clock.advance(1);
    await sweep.run({ sweep: sweep.name, now: h.clock.now() });
    const message = await h.as().get(`/v1/messages/${held.id}`).expect(200);
    expect(message.body).toMatchObject({ status: "suppressed", status_reason: "expired" });
    expect((await callbacksOf(h, held.id)).map((c) => (c.body as { status: string }).status)).toEqual([
      "expired",
    ]);
  });
});

describe("who may decide", () => {
  it("agent keys get 403 on approve and reject, their own messages included, whatever the body", async () => {
    const held = await heldMessage(h);
    for (const action of ["approve", "reject"]) {
      for (const body of [{}, { reason: 5 }, { nonsense: true }]) {
        const res = await h.as(h.agentKey).post(`/v1/messages/${held.id}/${action}`).send(body).expect(403);
        expect(res.body).toMatchObject({
          title: "Forbidden",
          detail: "agent keys may not approve or reject",
        });
      }
    }
    expect((await h.as().get(`/v1/messages/${held.id}`)).body.status).toBe("pending_approval");
  });

  it("a key without messages:write gets 403; an unknown message 404; a bad reason 422", async () => {
    const held = await heldMessage(h);
    const reader = await h.keyWith(["messages:read"]);
    await h.as(reader).post(`/v1/messages/${held.id}/approve`).expect(403);
    const missing = await h
      .as(h.reviewerKey)
      .post("/v1/messages/msg_01J000000000000000000000ZZ/approve")
      .expect(404);
    expect(missing.body.detail).toBe("no message 'msg_01J000000000000000000000ZZ'");
    const bad = await h
      .as(h.reviewerKey)
      .post(`/v1/messages/${held.id}/reject`)
      .send({ reason: "x".repeat(1001) })
      .expect(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ loc: ["body", "reason"] })]);
  });
});

describe("review links", () => {
  it("each reviewer gets a personal link that lives as long as the held message", async () => {
    const held = await heldMessage(h);
    const links = await h.prisma.reviewLink.findMany({
      where: { message_id: held.id },
      orderBy: { reviewer: "asc" },
    });
    expect(links.map((l) => [l.reviewer, l.expires_at.toISOString()])).toEqual([
      ["rev-a", held.approval_expires_at],
      ["rev-b", held.approval_expires_at],
    ]);
    // Only the SHA-256 of each token is stored; delivery computes the URL (see the browser test).
    expect(links.every((l) => /^[0-9a-f]{64}$/.test(l.token_hash))).toBe(true);
  });
});

const quietLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
} as never;
