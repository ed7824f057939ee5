import { decideByReviewLink, ingestEvents, reviewToken } from "@svc/engine";
import {
  callbacksOf,
  heldMessage,
  jobsOf,
  noticesOf,
  SECRET_KEY,
  startApprovalsHarness,
  T0,
  type ApprovalsHarness,
} from "./approval-fixtures";

// Decisions race and the cap on waiting items (docs/approvals.md): of many simultaneous decisions
// exactly one wins (one callback); approvals.max_pending_per_agent answers 429 with Retry-After,
// also when the agent's sends race.

let h: ApprovalsHarness;
beforeAll(async () => {
  h = await startApprovalsHarness("approvals_races", { config: { approvals: { max_pending_per_agent: 3 } } });
});
afterAll(() => h?.close());
beforeEach(async () => {
  h.clock.set(T0);
  // Each test starts with nothing waiting.
  await h.prisma.message.updateMany({ where: { status: "pending_approval" }, data: { status: "cancelled" } });
  await h.prisma.approvalRequest.updateMany({ where: { status: "pending" }, data: { status: "rejected" } });
});

const linkTokensOf = async (itemId: string) => {
  const links = await h.prisma.reviewLink.findMany({
    where: { OR: [{ message_id: itemId }, { approval_id: itemId }] },
  });
  return links.map((link) => reviewToken(SECRET_KEY, link.id, link.nonce));
};

const engineDeps = () => ({
  prisma: h.prisma,
  config: h.config,
  queues: h.queues,
  logger: { info: () => undefined, warn: () => undefined } as never,
  now: h.clock.now,
});

describe("simultaneous decisions", () => {
  it("a held message: 20 attempts by links and API at once, exactly one decision and one callback", async () => {
    const held = await heldMessage(h);
    const tokens = await linkTokensOf(held.id);
    expect(tokens).toHaveLength(2);
    const attempts = Array.from({ length: 20 }, (_, i) => {
      if (i % 2 === 0) {
        const action = i % 4 === 0 ? "approve" : "reject";
        return h
          .as(h.reviewerKey)
          .post(`/v1/messages/${held.id}/${action}`)
          .send({ reason: `api ${i}` })
          .then((res) => ({ via: "api", status: res.status }));
      }
      const decision =
        i % 4 === 1 ? { action: "approve" as const } : { action: "reject" as const, reason: `link ${i}` };
      return decideByReviewLink(engineDeps(), tokens[i % 2]!, decision).then((r) => ({
        via: "link",
        status: r.decided ? 200 : 410,
      }));
    });
    const results = await Promise.all(attempts);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.via === "api" && r.status !== 200).every((r) => r.status === 409)).toBe(
      true,
    );
    expect(results.filter((r) => r.via === "link" && r.status !== 200).every((r) => r.status === 410)).toBe(
      true,
    );
    expect(await callbacksOf(h, held.id)).toHaveLength(1);
    const message = await h.prisma.message.findUniqueOrThrow({ where: { id: held.id } });
    expect(["queued", "cancelled"]).toContain(message.status);
    expect(message.reviewed_by).not.toBeNull();
  });

  it("an approval request: 20 attempts at once, exactly one decision and one callback", async () => {
    const request = (
      await h
        .as(h.agentKey)
        .post("/v1/approvals")
        .send({ title: "Go?", reviewers: ["rev-a", "rev-b"] })
        .expect(201)
    ).body;
    const tokens = await linkTokensOf(request.id as string);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? h
              .as(h.reviewerKey)
              .post(`/v1/approvals/${request.id}/${i % 4 === 0 ? "approve" : "reject"}`)
              .then((res) => res.status)
          : decideByReviewLink(engineDeps(), tokens[i % 2]!, { action: "approve" }).then((r) =>
              r.decided ? 200 : 410,
            ),
      ),
    );
    expect(results.filter((s) => s === 200)).toHaveLength(1);
    expect(results.every((s) => [200, 409, 410].includes(s))).toBe(true);
    expect(await callbacksOf(h, request.id as string)).toHaveLength(1);
  });
});

describe("approvals.max_pending_per_agent", () => {
  it("the next held item is 429 with Retry-After until the nearest deadline; nothing is stored", async () => {
    await heldMessage(h, "1");
    h.clock.advance(100);
    await heldMessage(h, "2");
    await h
      .as(h.agentKey)
      .post("/v1/approvals")
      .send({ title: "third", reviewers: ["rev-a"], expires_in_seconds: 3600 })
      .expect(201);
    const before = await h.prisma.message.count();
    const over = await h
      .as(h.agentKey)
      .post("/v1/messages")
      .send({
        recipient: "alice",
        template: "deploy",
        category: "transactional",
        channels: ["console"],
        data: { version: "4" },
      })
      .expect(429);
    expect(over.body).toMatchObject({
      title: "Too many requests",
      detail:
        "agent 'bot' has 3 items waiting for approval (approvals.max_pending_per_agent is 3); retry once one is decided or expires",
    });
    // The first message's deadline is T0 + 600 s; the clock is at T0 + 100 s.
    expect(over.headers["retry-after"]).toBe("500");
    expect(await h.prisma.message.count()).toBe(before);
    const request = await h
      .as(h.agentKey)
      .post("/v1/approvals")
      .send({ title: "fourth", reviewers: ["rev-a"] })
      .expect(429);
    expect(request.headers["retry-after"]).toBe("500");
    // Events of an agent at its cap wait too (any of them may hold a message).
    const event = await h
      .as(h.agentKey)
      .post("/v1/events")
      .send({ name: "deploy.done", recipient: "alice" })
      .expect(429);
    expect(event.headers["retry-after"]).toBe("500");
    // A backend key is not an agent: no cap.
    await h
      .as(h.reviewerKey)
      .post("/v1/approvals")
      .send({ title: "backend", reviewers: ["x"] })
      .expect(201);
    // A message the agent sends that is not held is not refused.
    await h.as().patch("/v1/agents/bot").send({ approval: null });
    try {
      const plain = await h
        .as(h.agentKey)
        .post("/v1/messages")
        .send({ recipient: "alice", template: "deploy", category: "transactional", channels: ["console"] })
        .expect(202);
      expect(plain.body.status).toBe("queued");
    } finally {
      await h.as().patch("/v1/agents/bot").send({ approval: true });
    }
  });

  it("sends racing at the cap: exactly as many are held as fit, the rest are 429", async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h
          .as(h.agentKey)
          .post("/v1/messages")
          .send({
            recipient: "alice",
            template: "deploy",
            category: "transactional",
            channels: ["console"],
            data: { version: `r${i}` },
          })
          .then((res) => res.status),
      ),
    );
    expect(results.filter((s) => s === 202)).toHaveLength(3);
    expect(results.filter((s) => s === 429)).toHaveLength(7);
    expect(await h.prisma.message.count({ where: { agent_key: "bot", status: "pending_approval" } })).toBe(3);
  });
});

describe("held while ingesting an agent's event", () => {
  it("the notices are written with the message, in the ingest transaction, and handed on as follow-ups", async () => {
    await h
      .as()
      .put("/v1/rules/deploys")
      .send({ event: "deploy.done", template: "deploy", category: "transactional", channels: ["console"] });
    const event = (
      await h
        .as(h.agentKey)
        .post("/v1/events")
        .send({ name: "deploy.done", recipient: "alice", data: { version: "9" } })
        .expect(202)
    ).body;
    const results = await ingestEvents({ prisma: h.prisma, config: h.config, now: h.clock.now }, [
      event.id as string,
    ]);
    const result = results.get(event.id as string)!;
    expect(result).toMatchObject({
      status: "processed",
      outcomes: [{ rule: "deploys", status: "pending_approval" }],
    });
    const messageId = (result as { outcomes: { message_id: string }[] }).outcomes[0]!.message_id;
    const notices = await noticesOf(h, messageId);
    expect(notices.map((n) => n.recipient_external_id)).toEqual(["rev-a", "rev-b"]);
    expect((result as { followUps: { notices: string[] } }).followUps.notices.sort()).toEqual(
      notices.map((n) => n.id).sort(),
    );
    expect(await jobsOf(h, "delivery")).not.toContainEqual(
      expect.objectContaining({ data: expect.objectContaining({ messageId }) }),
    );
  });
});

describe("agent keys are refused before validation where they may never act", () => {
  it.each([
    [
      "post",
      "/v1/recipients/alice/consent",
      { categories: ["marketing"] },
      "agent keys may not record consent",
    ],
    [
      "put",
      "/v1/recipients/alice/preferences",
      { muted_channels: 5 },
      "agent keys may not change recipients",
    ],
    ["post", "/v1/recipients/alice/preference-token", undefined, "agent keys may not change recipients"],
    ["put", "/v1/recipients/alice", { locale: 12 }, "agent keys may not change recipients"],
    ["post", "/v1/recipients/alice/addresses", {}, "agent keys may not change recipients"],
    [
      "get",
      "/v1/recipients/alice/preferences/history?limit=nope",
      undefined,
      "agent keys may not read preferences or the consent ledger",
    ],
  ] as const)("%s %s with an invalid body: 403", async (method, path, body, detail) => {
    const key = await h.keyWith(["recipients:write", "recipients:read", "messages:write"], "bot");
    const req = h.as(key)[method](path);
    const res = await (body === undefined ? req : req.send(body)).expect(403);
    expect(res.body.detail).toBe(detail);
  });
});
