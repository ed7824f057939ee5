// Shared setup of the approvals tests: an agent whose messages wait for two reviewers, a template,
// a person, a clock the test moves, and reads of what svc wrote (notices, callbacks, jobs).
import { ingestEvent } from "@svc/engine";
import { startHarness, type Harness, type HarnessOptions } from "./service-harness";

export const T0 = new Date("2026-03-02T12:00:00.000Z"); // a Monday noon, outside quiet hours
export const SECRET_KEY = "approvals-test-secret-key-0123456789abcdef";
export const PUBLIC_URL = "https://svc.example.test";

/** A clock the test moves by hand. */
export function movableClock(start = T0) {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    set: (date: Date) => void (now = date.getTime()),
    advance: (seconds: number) => void (now += seconds * 1000),
  };
}

export interface ApprovalsHarness extends Harness {
  clock: ReturnType<typeof movableClock>;
  /** A key bound to the `bot` agent (messages:write, messages:read, events:write). */
  agentKey: string;
  /** A key not bound to an agent that may decide (messages:write, messages:read). */
  reviewerKey: string;
}

export async function startApprovalsHarness(
  name: string,
  options: { config?: Record<string, unknown>; agent?: Record<string, unknown> } = {},
): Promise<ApprovalsHarness> {
  const clock = movableClock();
  const harnessOptions: HarnessOptions = {
    now: clock.now,
    secretKey: SECRET_KEY,
    config: {
      api: { public_url: PUBLIC_URL },
      channels: { console: { provider: "console" } },
      ...options.config,
      approvals: {
        callback_url: "http://127.0.0.1:9/callbacks",
        ...(options.config?.approvals as Record<string, unknown> | undefined),
      },
    },
  };
  const h = await startHarness(name, harnessOptions);
  await h
    .as()
    .put("/v1/agents/bot")
    .send({
      name: "Deploy bot",
      description: "Posts deploy results",
      categories: ["transactional"],
      approval: true,
      approval_ttl_seconds: 600,
      reviewers: ["rev-a", "rev-b"],
      frequency_caps: [{ period: "P1D", limit: 50 }],
      ...options.agent,
    })
    .expect((res) => expect([200, 201]).toContain(res.status));
  await h
    .as()
    .put("/v1/templates/deploy")
    .send({
      locales: { en: { title: "Deploy {{ data.version }}", body: "Version {{ data.version }} is live." } },
    })
    .expect((res) => expect([200, 201]).toContain(res.status));
  await h
    .as()
    .put("/v1/recipients/alice")
    .send({ locale: "en", addresses: [{ channel: "console", value: "alice@example.com" }] })
    .expect((res) => expect([200, 201]).toContain(res.status));
  const agentKey = await h.keyWith(["messages:write", "messages:read", "events:write"], "bot");
  const reviewerKey = await h.keyWith(["messages:write", "messages:read"]);
  return { ...h, clock, agentKey, reviewerKey };
}

/** A direct send by the agent: held for approval. */
export async function heldMessage(h: ApprovalsHarness, version = "1.2.3") {
  const res = await h
    .as(h.agentKey)
    .post("/v1/messages")
    .send({
      recipient: "alice",
      template: "deploy",
      category: "transactional",
      channels: ["console"],
      data: { version },
    })
    .expect(202);
  expect(res.body.status).toBe("pending_approval");
  return res.body as { id: string; approval_expires_at: string; [key: string]: unknown };
}

/** The `svc.approval_requested` events written for an item (message or approval request). */
export async function noticesOf(h: Harness, itemId: string) {
  const events = await h.prisma.event.findMany({
    where: { name: "svc.approval_requested" },
    orderBy: { recipient_external_id: "asc" },
  });
  return events.filter((e) => {
    const data = e.data as { message_id?: string; approval_id?: string };
    return data.message_id === itemId || data.approval_id === itemId;
  });
}

/** The callback rows recorded for an item. */
export function callbacksOf(h: Harness, itemId: string) {
  return h.prisma.callbackDelivery.findMany({ where: { subject_id: itemId } });
}

/** Ingests an event with the harness's configuration (workers are not running in API tests). */
export function ingest(h: ApprovalsHarness, eventId: string) {
  return ingestEvent({ prisma: h.prisma, config: h.config, now: h.clock.now }, eventId);
}

/** Jobs waiting in Redis for a queue, by name and payload. */
export async function jobsOf(h: Harness, queue: "delivery" | "ingest" | "callbacks") {
  const jobs = await h.queues.queue(queue).getJobs(["waiting", "delayed", "prioritized"]);
  return jobs.map((job) => ({ name: job.name, data: job.data as Record<string, unknown>, id: job.id }));
}
