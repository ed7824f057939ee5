import { createLogger } from "@svc/log";
import { createQueues, type Queues } from "@svc/queue";
import { decideMessageByKey, requeueDueSweep, requeuePendingEventsSweep, sendMessage } from "@svc/engine";
import { jobsOf, noticesOf, startApprovalsHarness, T0, type ApprovalsHarness } from "./approval-fixtures";

// Nothing a decision writes is lost when Redis is gone at the moment of its enqueue
// (docs/approvals.md "Recovery"): the rows are committed, and the sweeps bring the work back.

let h: ApprovalsHarness;
let down: Queues;
beforeAll(async () => {
  h = await startApprovalsHarness("approvals_recovery");
  down = createQueues({ redisUrl: "redis://127.0.0.1:1", prefix: "unused", unavailableAfterMs: 200 });
});
afterAll(async () => {
  await down?.close().catch(() => undefined);
  await h?.close();
});

const principalOf = async (key: string) => {
  const row = await h.prisma.apiKey.findUniqueOrThrow({ where: { id: h.keyIdOf(key) } });
  return { keyId: row.id, keyName: row.name, scopes: row.scopes as never, agentKey: row.agent_key };
};

it("a held message's notices and an approved message's delivery come back through the sweeps", async () => {
  const logger = createLogger({ service: "approvals-recovery", level: "error" });
  const deps = { prisma: h.prisma, config: h.config, logger, now: h.clock.now, queues: down };

  // Held with Redis gone: the message and its notices are committed, the notices' job is not.
  const { message } = await sendMessage(deps, await principalOf(h.agentKey), {
    recipient: "alice",
    template: "deploy",
    category: "transactional",
    channels: ["console"],
    data: { version: "7" },
  });
  expect(message.status).toBe("pending_approval");
  const notices = await noticesOf(h, message.id);
  expect(notices).toHaveLength(2);
  expect(await jobsOf(h, "ingest")).toEqual([]);
  const pendingSweep = requeuePendingEventsSweep({ prisma: h.prisma, queues: h.queues });
  await pendingSweep.run({ sweep: pendingSweep.name, now: new Date(T0.getTime() + 31_000) });
  expect(
    (await jobsOf(h, "ingest"))
      .map((j) => j.data)
      .sort((a, b) => String(a.eventId).localeCompare(String(b.eventId))),
  ).toEqual(notices.map((n) => ({ eventId: n.id })).sort((a, b) => a.eventId.localeCompare(b.eventId)));

  // Approved with Redis gone: queued and committed, its delivery job lost.
  const approved = await decideMessageByKey(deps, await principalOf(h.reviewerKey), message.id, {
    action: "approve",
  });
  expect(approved.status).toBe("queued");
  expect((await jobsOf(h, "delivery")).filter((j) => j.data.messageId === message.id)).toEqual([]);
  const requeueDue = requeueDueSweep({ prisma: h.prisma, queues: h.queues });
  await requeueDue.run({ sweep: requeueDue.name, now: new Date(T0.getTime() + 61_000) });
  const row = await h.prisma.message.findUniqueOrThrow({ where: { id: message.id } });
  expect((await jobsOf(h, "delivery")).map((j) => j.data)).toContainEqual({
    messageId: message.id,
    generation: row.generation,
  });
  // The callback row waits as `pending` for the callbacks sweep.
  expect(
    await h.prisma.callbackDelivery.findMany({ where: { subject_id: message.id }, select: { status: true } }),
  ).toEqual([{ status: "pending" }]);
});
