import request from "supertest";
import { newId } from "@svc/core";
import { createLogger } from "@svc/log";
import { deliverySweeps } from "@svc/engine";
import { startMetricsListener, startWorkerProcess, type WorkerProcess } from "@svc/worker";
import { waitFor } from "@svc/testkit";
import { WebhookSink } from "../../../../bench/lib/faults/sink";
import { startHarness, type Harness } from "./service-harness";

// docs/operations.md "Metrics": real traffic (an event through ingest and delivery to a webhook,
// the sweeps' first runs) moves the metrics an operator alerts on, under their documented names
// and labels; /metrics needs an admin key on the API port, and a worker's listener serves the same.

const sink = new WebhookSink();
let h: Harness;
let workers: WorkerProcess;

beforeAll(async () => {
  await sink.start();
  h = await startHarness("metrics", {
    config: {
      api: { rate_limit: { enabled: true } },
      channels: { hook: { provider: "webhook", url: sink.url, secret_env: "HOOK_SECRET" } },
    },
    env: { HOOK_SECRET: "metrics-hook-secret" },
  });
  const logger = createLogger({ service: "metrics-test", level: "error" });
  workers = startWorkerProcess({
    queues: h.queues,
    logger,
    prisma: h.prisma,
    config: h.config,
    now: () => new Date(),
    env: { HOOK_SECRET: "metrics-hook-secret" },
    deliverInline: true,
  });
  await workers.scheduleSweeps();
  await h.prisma
    .$executeRaw`INSERT INTO templates (key, locales, updated_at) VALUES ('m', ${JSON.stringify({ en: { title: "T", body: "B" } })}::jsonb, now())`;
  await h.prisma
    .$executeRaw`INSERT INTO rules (key, event, template, category, channels, updated_at) VALUES ('m', 'metrics.drill', 'm', 'transactional', ARRAY['hook'], now())`;
  const person = newId("recipient");
  await h.prisma
    .$executeRaw`INSERT INTO recipients (id, external_id, updated_at) VALUES (${person}, 'metrics-person', now())`;
  await h.prisma
    .$executeRaw`INSERT INTO addresses (recipient_id, channel, value) VALUES (${person}, 'hook', 'somewhere')`;
}, 60_000);
afterAll(async () => {
  await workers.close();
  await h.close();
  await sink.close();
});

/** `name{a="x",b="y"} 3` lines → the value of the sample whose labels include `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return 0;
}

const scrape = async () => (await h.as().get("/metrics").expect(200)).text;

it("needs an admin key on the API port", async () => {
  await request(h.app).get("/metrics").expect(401);
  await h
    .as(await h.keyWith(["events:write"]))
    .get("/metrics")
    .expect(403);
  const res = await h.as().get("/metrics").expect(200);
  expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
});

it("counts requests, final messages, attempts, event-to-sent latency, queues and sweeps after real traffic", async () => {
  const before = await scrape();
  const accepted = { method: "POST", route: "/v1/events", status: "202" };
  const sent = { status: "sent", reason: "" };
  const ok = { channel: "hook", provider: "webhook", outcome: "ok" };

  const key = await h.keyWith(["events:write"]);
  await h.as(key).post("/v1/events").send({ name: "metrics.drill", recipient: "metrics-person" }).expect(202);
  await waitFor(async () => sink.total >= 1, { timeoutMs: 15_000, what: "the webhook call" });
  const after = await waitFor(
    async () => {
      const text = await scrape();
      return sample(text, "svc_messages_final_total", sent) >
        sample(before, "svc_messages_final_total", sent) &&
        sample(text, "svc_sweep_runs_total", { sweep: "requeue-pending-events", outcome: "ok" }) > 0
        ? text
        : undefined;
    },
    { timeoutMs: 15_000, what: "the sent message in the metrics" },
  );

  expect(sample(after, "svc_http_requests_total", accepted)).toBe(
    sample(before, "svc_http_requests_total", accepted) + 1,
  );
  expect(sample(after, "svc_http_request_duration_seconds_count", accepted)).toBeGreaterThan(
    sample(before, "svc_http_request_duration_seconds_count", accepted),
  );
  expect(sample(after, "svc_delivery_attempts_total", ok)).toBe(
    sample(before, "svc_delivery_attempts_total", ok) + 1,
  );
  expect(sample(after, "svc_event_to_sent_seconds_count")).toBe(
    sample(before, "svc_event_to_sent_seconds_count") + 1,
  );
  expect(after).toMatch(/^svc_queue_jobs\{queue="delivery",state="waiting"\} \d+$/m);
  expect(after).toMatch(/^svc_queue_jobs\{queue="ingest",state="failed"\} \d+$/m);
  expect(after).toContain("# TYPE svc_callback_deliveries_total counter");
  expect(after).toContain("# TYPE svc_sweep_rows_total counter");
});

/** A queued message for the drill person, as composition leaves it (send time and expiry given). */
async function queuedFor(sendAt: Date, expiresAt: Date | null): Promise<string> {
  const person = await h.prisma.recipient.findUniqueOrThrow({ where: { external_id: "metrics-person" } });
  const message = await h.prisma.message.create({
    data: {
      id: newId("message"),
      status: "queued",
      recipient_id: person.id,
      recipient_external_id: person.external_id,
      sender: "backend",
      category: "transactional",
      template: "m",
      importance: "normal",
      claimed_importance: "normal",
      channels: ["hook"],
      content: { title: "T", body: "B", url: null, thread: null, locale: "en", channel: "hook" },
      send_at: sendAt,
      expires_at: expiresAt,
      link_nonce: "metrics-nonce",
    },
  });
  return message.id;
}

it("counts messages made final outside delivery: cancelled via the API, expired by the sweep", async () => {
  const before = await scrape();
  const cancelled = { status: "cancelled", reason: "cancelled via API" };
  const expired = { status: "suppressed", reason: "expired" };
  const later = new Date(Date.now() + 3_600_000);

  const toCancel = await queuedFor(later, null);
  await h.as().post(`/v1/messages/${toCancel}/cancel`).expect(200);
  await h.as().post(`/v1/messages/${toCancel}/cancel`).expect(409);
  await queuedFor(later, new Date(Date.now() - 1_000));
  await queuedFor(later, new Date(Date.now() - 1_000));
  const expireQueued = deliverySweeps({ prisma: h.prisma, queues: h.queues }).find(
    (sweep) => sweep.name === "expire-queued",
  )!;
  // The scheduled run of the same sweep (in this process) may get there first: either counts.
  await expireQueued.run({ sweep: "expire-queued", now: new Date() });

  const after = await scrape();
  expect(sample(after, "svc_messages_final_total", cancelled)).toBe(
    sample(before, "svc_messages_final_total", cancelled) + 1,
  );
  expect(sample(after, "svc_messages_final_total", expired)).toBe(
    sample(before, "svc_messages_final_total", expired) + 2,
  );
});

it("a worker's listener serves the same text on its own address", async () => {
  const listener = await startMetricsListener({
    host: "127.0.0.1",
    port: 0,
    queues: h.queues,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  try {
    const res = await fetch(`http://127.0.0.1:${listener.port}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("# TYPE svc_messages_final_total counter");
    expect((await fetch(`http://127.0.0.1:${listener.port}/other`)).status).toBe(404);
  } finally {
    await listener.close();
  }
});
