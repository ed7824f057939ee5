import { parseConfig } from "@svc/config";
import type { Principal } from "@svc/core";
import { createLogCapture, createLogger } from "@svc/log";
import { createNoticeBus, createQueues, type NoticeBus, type Queues } from "@svc/queue";
import {
  freePort,
  createTestDatabase,
  testRedisPrefix,
  webhookEventsIn,
  type TestDatabase,
  type TestRedisPrefix,
} from "@svc/testkit";
import { createApiKey } from "../../api-keys/create-api-key";
import { createApprovalRequest, type ApprovalDeps } from "../approval-requests";
import { decideApprovalRequestOnce } from "../decide-request";
import { createApprovalWaiters } from "../approval-waiters";
import { expireHeldItemsSweep } from "../expire-held-items";
import { withdrawApprovalRequestBySender } from "../withdraw-request";

// What the end of an approval request writes beside it (docs/outbox.md, docs/approvals.md): one
// outbox entry per end, in the transaction of the change (`approval.decided` {approval_id, kind,
// status} on approvals:<id>; `approval.withdrawn` for a withdrawal); nothing for a late decision.
// The expiry sweep expires requests the same way and drops session grants past their deadline.
// A waiter without Redis re-reads every second.

let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
let deps: ApprovalDeps;
let principal: Principal;

beforeAll(async () => {
  db = await createTestDatabase("request_outcomes");
  redis = testRedisPrefix("request_outcomes");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  deps = {
    prisma: db.prisma,
    config: parseConfig({}, {}),
    logger: createLogger({ service: "outcomes-test", level: "error", stream: createLogCapture().stream }),
    now: () => new Date(),
    queues,
  };
  const key = await createApiKey(
    { prisma: db.prisma, now: deps.now },
    { name: "backend", scopes: ["admin"], agent: null },
  );
  principal = { keyId: key.id, keyName: "backend", scopes: ["admin"], agentKey: null };
});
afterAll(async () => {
  await queues.close();
  await redis.cleanup();
  await db.drop();
});
beforeEach(() => db.prisma.$executeRaw`DELETE FROM outbox`);

// The approvals' own entries; the webhook events beside them are checked on their own.
const entries = () =>
  db.prisma.outboxEntry.findMany({
    where: { topic: { not: "webhook.event" } },
    orderBy: { id: "asc" },
    select: { topic: true, payload: true, notify: true },
  });
const ask = () => createApprovalRequest(deps, principal, { title: "Refund?", reviewers: ["ada"] });
const decider = { name: "ops", keyId: null };

it("a decision writes approval.decided on approvals:<id>; a late one writes nothing", async () => {
  const { id } = await ask();
  expect(await entries()).toEqual([]);
  const result = await decideApprovalRequestOnce(deps, id, { action: "reject", reason: "no" }, decider);
  expect(result.kind).toBe("decided");
  expect(await entries()).toEqual([
    {
      topic: "approval.decided",
      payload: { approval_id: id, kind: "action", status: "rejected" },
      notify: `approvals:${id}`,
    },
  ]);
  const row = await db.prisma.approvalRequest.findUniqueOrThrow({ where: { id } });
  expect(await webhookEventsIn(db.prisma)).toEqual([
    {
      type: "approval.decided",
      occurred_at: row.decided_at!.toISOString(),
      subject: { kind: "approval", id },
      snapshot: { status: "rejected", decided_by: "ops", decided_at: row.decided_at!.toISOString() },
    },
  ]);
  const late = await decideApprovalRequestOnce(deps, id, { action: "approve" }, decider);
  expect(late.kind).toBe("not_waiting");
  expect(await entries()).toHaveLength(1);
  expect(await webhookEventsIn(db.prisma)).toHaveLength(1);
});

it("a withdrawal writes approval.withdrawn; withdrawing again changes nothing", async () => {
  const { id } = await ask();
  expect((await withdrawApprovalRequestBySender(deps, principal, id)).status).toBe("withdrawn");
  expect((await withdrawApprovalRequestBySender(deps, principal, id)).status).toBe("withdrawn");
  expect(await entries()).toEqual([
    {
      topic: "approval.withdrawn",
      payload: { approval_id: id, kind: "action", status: "withdrawn" },
      notify: `approvals:${id}`,
    },
  ]);
  // Withdrawn is no webhook event type.
  expect(await webhookEventsIn(db.prisma)).toEqual([]);
  await expect(decideApprovalRequestOnce(deps, id, { action: "approve" }, decider)).resolves.toMatchObject({
    kind: "not_waiting",
  });
});

it("the expiry sweep expires requests with their entry and drops session grants past their deadline", async () => {
  const { id } = await ask();
  const past = new Date(Date.now() - 1_000);
  await db.prisma.approvalRequest.update({ where: { id }, data: { expires_at: past } });
  await db.prisma.sessionGrant.createMany({
    data: [
      {
        id: "sgr_old",
        owner: "coder",
        session_id: "s1",
        rules: ["Bash"],
        approval_id: id,
        granted_by: "ops",
        expires_at: past,
      },
      {
        id: "sgr_new",
        owner: "coder",
        session_id: "s1",
        rules: ["Read"],
        approval_id: id,
        granted_by: "ops",
        expires_at: new Date(Date.now() + 60_000),
      },
    ],
  });
  await expireHeldItemsSweep(deps).run({ sweep: "expire-held-items", now: new Date() });
  expect(await entries()).toEqual([
    {
      topic: "approval.decided",
      payload: { approval_id: id, kind: "action", status: "expired" },
      notify: `approvals:${id}`,
    },
  ]);
  expect(await webhookEventsIn(db.prisma)).toMatchObject([
    {
      type: "approval.decided",
      subject: { kind: "approval", id },
      snapshot: { status: "expired", decided_by: null },
    },
  ]);
  expect((await db.prisma.sessionGrant.findMany()).map((grant) => grant.id)).toEqual(["sgr_new"]);
});

describe("a waiter without Redis", () => {
  let notices: NoticeBus;
  beforeAll(async () => {
    notices = createNoticeBus({ redisUrl: `redis://127.0.0.1:${await freePort()}`, prefix: "nowhere" });
  });
  afterAll(() => notices.close());

  it("re-reads every second, so a decision is still seen before the wait ends", async () => {
    const waiters = createApprovalWaiters({ notices, maxWaiters: 5, maxPerKey: 5, now: () => new Date() });
    let decided = false;
    setTimeout(() => (decided = true), 300);
    const started = Date.now();
    const value = await waiters.wait({
      channel: "approvals:apr_x",
      key: "key_1",
      until: new Date(Date.now() + 10_000),
      read: async () => decided,
      done: (read) => read,
    });
    expect(value).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(waiters.active).toBe(0);
  }, 15_000);
});

it("a decision and a withdrawal racing: exactly one wins, with exactly one entry", async () => {
  // Five pairs: ten transactions at once, within the test database's pool of ten connections.
  const ids = await Promise.all(Array.from({ length: 5 }, () => ask().then((view) => view.id)));
  const outcomes = await Promise.all(
    ids.map(async (id) => {
      const [decided, withdrawn] = await Promise.allSettled([
        decideApprovalRequestOnce(deps, id, { action: "approve" }, decider),
        withdrawApprovalRequestBySender(deps, principal, id),
      ]);
      const approvedWon = decided.status === "fulfilled" && decided.value.kind === "decided";
      const withdrawnWon = withdrawn.status === "fulfilled" && withdrawn.value.status === "withdrawn";
      // The loser saw the winner's state: a 409 for the withdrawal, `not_waiting` for the decision.
      if (approvedWon) expect(withdrawn).toMatchObject({ status: "rejected", reason: { status: 409 } });
      if (withdrawnWon)
        expect(decided).toMatchObject({ status: "fulfilled", value: { kind: "not_waiting" } });
      return approvedWon !== withdrawnWon;
    }),
  );
  expect(outcomes.every(Boolean)).toBe(true);
  const written = await entries();
  expect(written).toHaveLength(ids.length);
  for (const id of ids)
    expect(
      written.filter((entry) => (entry.payload as { approval_id: string }).approval_id === id),
    ).toHaveLength(1);
}, 30_000);
