import { parseConfig } from "@svc/config";
import { newId, providerErrorsReason, type Principal } from "@svc/core";
import { createLogCapture, createLogger, metrics } from "@svc/log";
import { createQueues, type Queues } from "@svc/queue";
import { createTestDatabase, testRedisPrefix, type TestDatabase, type TestRedisPrefix } from "@svc/testkit";
import { cancelMessage } from "../../messages/cancel-message";
import { sendMessage, type SendMessageDeps, type SendMessageInput } from "../../messages/send-message";
import {
  countDeliveryAttempts,
  countInboxStreams,
  recordEventToSent,
  recordFinalMessage,
  recordFinalRows,
  recordWebhookEndpointDisabled,
  recordWebhookTry,
} from "../record-metrics";

// What the use cases report to Prometheus (docs/operations.md "Metrics"): final messages by status
// and reason *code* (never the free text), provider tries by outcome, event-to-sent time; and the
// direct-send and cancel use cases count each message once, when it reaches its final status.

const NOW = new Date("2024-01-15T12:00:00.000Z");

let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
let deps: SendMessageDeps;
const backend: Principal = { keyId: "key_metrics", keyName: "backend", scopes: ["admin"], agentKey: null };

beforeAll(async () => {
  db = await createTestDatabase("engine_metrics");
  redis = testRedisPrefix("engine_metrics");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  deps = {
    prisma: db.prisma,
    config: parseConfig({ channels: { email: { provider: "console" } } }, {}),
    logger: createLogger({ service: "metrics-test", level: "error", stream: createLogCapture().stream }),
    now: () => NOW,
    queues,
  };
  await db.prisma.template.createMany({
    data: [
      { key: "fine", locales: { en: { title: "T", body: "B" } } },
      // Compiles, but arithmetic on a missing value fails when rendered (docs/templates.md).
      { key: "broken", locales: { en: { title: "T", body: "{{ data.n + 1 }}" } } },
    ],
  });
});
afterAll(async () => {
  await queues.close();
  await redis.cleanup();
  await db.drop();
});

type Labels = Record<string, string>;

/** The current value of the series of `metric` with exactly these labels (0 when never counted). */
async function value(
  metric: { get(): Promise<{ values: { labels: object; value: number }[] }> },
  labels: Labels,
) {
  const { values } = await metric.get();
  const series = values.find(
    (v) => JSON.stringify(sorted(v.labels as Labels)) === JSON.stringify(sorted(labels)),
  );
  return series?.value ?? 0;
}
const sorted = (labels: Labels) =>
  Object.fromEntries(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
const final = (status: string, reason: string) => value(metrics.messagesFinal, { status, reason });

/** How much each series moved while `act` ran. */
async function moved(series: [string, string][], act: () => Promise<unknown>): Promise<number[]> {
  const before = await Promise.all(series.map(([s, r]) => final(s, r)));
  await act();
  const after = await Promise.all(series.map(([s, r]) => final(s, r)));
  return after.map((v, i) => v - before[i]!);
}

test("final messages are counted by reason code; provider error lists as provider_error; none as empty", async () => {
  const series: [string, string][] = [
    ["suppressed", "frequency_cap"],
    ["failed", "provider_error"],
    ["failed", "gave up"],
    ["sent", ""],
    ["cancelled", "cancelled via API"],
  ];
  expect(
    await moved(series, async () => {
      recordFinalMessage("suppressed", "frequency_cap: 2 per P1D");
      recordFinalMessage("suppressed", "frequency_cap: 5 per P7D", 3);
      recordFinalMessage("failed", providerErrorsReason(["email: 550 mailbox unknown", "sms: 21211 bad"]));
      recordFinalMessage("failed", "gave up: timeout after 3000 ms");
      recordFinalMessage("sent", null);
      recordFinalMessage("cancelled", "cancelled via API");
      recordFinalMessage("cancelled", "cancelled via API", 0); // nothing to count
    }),
  ).toEqual([4, 1, 1, 1, 1]);
  // The free text never becomes a label value.
  const labels = (await metrics.messagesFinal.get()).values.map((v) => v.labels.reason);
  expect(labels).not.toContain("frequency_cap: 2 per P1D");
  expect(labels.some((reason) => String(reason).includes("550"))).toBe(false);
});

test("recordFinalRows counts only rows in a final status", async () => {
  const series: [string, string][] = [
    ["suppressed", "unsubscribed"],
    ["delivered", ""],
    ["failed", "template_error"],
  ];
  expect(
    await moved(series, async () =>
      recordFinalRows([
        { status: "queued", status_reason: null },
        { status: "pending_approval", status_reason: null },
        { status: "sending", status_reason: null },
        { status: "suppressed", status_reason: "unsubscribed" },
        { status: "delivered", status_reason: null },
        { status: "failed", status_reason: "template_error: no usable locale" },
      ]),
    ),
  ).toEqual([1, 1, 1]);
  const statuses = new Set((await metrics.messagesFinal.get()).values.map((v) => v.labels.status));
  for (const notFinal of ["queued", "pending_approval", "sending"])
    expect(statuses.has(notFinal)).toBe(false);
});

test("provider tries by channel, provider and outcome; event-to-sent in seconds, never negative", async () => {
  const attempt = (outcome: string) =>
    value(metrics.deliveryAttempts, { channel: "sms", provider: "twilio", outcome });
  const before = await Promise.all(["ok", "retryable", "permanent"].map(attempt));
  countDeliveryAttempts([
    { channel: "sms", provider: "twilio", ok: true, retryable: false },
    { channel: "sms", provider: "twilio", ok: false, retryable: true },
    { channel: "sms", provider: "twilio", ok: false, retryable: true },
    { channel: "sms", provider: "twilio", ok: false, retryable: false },
  ]);
  const after = await Promise.all(["ok", "retryable", "permanent"].map(attempt));
  expect(after.map((v, i) => v - before[i]!)).toEqual([1, 2, 1]);

  const histogram = async () => {
    const { values } = await metrics.eventToSentSeconds.get();
    const of = (name: string) => values.find((v) => v.metricName === name)?.value ?? 0;
    return { count: of("svc_event_to_sent_seconds_count"), sum: of("svc_event_to_sent_seconds_sum") };
  };
  const start = await histogram();
  recordEventToSent(null, NOW); // a message without an event is not observed
  recordEventToSent(new Date(NOW.getTime() - 2_500), NOW);
  recordEventToSent(new Date(NOW.getTime() + 1_000), NOW); // clocks apart: clamped to 0
  const end = await histogram();
  expect(end.count - start.count).toBe(2);
  expect(end.sum - start.sum).toBeCloseTo(2.5, 6);
});

test("webhook tries per endpoint and outcome, disabled endpoints by reason, the inbox stream gauge", async () => {
  const tries = (outcome: string) => value(metrics.webhookDeliveries, { endpoint: "whk_1", outcome });
  const [succeeded, deferred] = [await tries("succeeded"), await tries("deferred")];
  recordWebhookTry("whk_1", "succeeded");
  recordWebhookTry("whk_1", "deferred");
  recordWebhookTry("whk_1", "deferred");
  expect([(await tries("succeeded")) - succeeded, (await tries("deferred")) - deferred]).toEqual([1, 2]);

  const gone = await value(metrics.webhookEndpointsDisabled, { reason: "gone" });
  recordWebhookEndpointDisabled("gone");
  expect(await value(metrics.webhookEndpointsDisabled, { reason: "gone" })).toBe(gone + 1);

  const open = await value(metrics.inboxStreams, {});
  countInboxStreams(1);
  countInboxStreams(1);
  countInboxStreams(-1);
  expect(await value(metrics.inboxStreams, {})).toBe(open + 1);
});

describe("through the use cases", () => {
  let people = 0;
  async function person(unsubscribed: string[] = []) {
    const externalId = `metrics-person-${++people}`;
    await db.prisma.recipient.create({
      data: {
        id: newId("recipient"),
        external_id: externalId,
        unsubscribed_categories: unsubscribed,
        addresses: { create: [{ channel: "email", value: `${externalId}@example.com` }] },
      },
    });
    return externalId;
  }
  const body = (recipient: string, extra: Partial<SendMessageInput> = {}): SendMessageInput => ({
    recipient,
    template: "fine",
    category: "transactional",
    channels: ["email"],
    ...extra,
  });

  test("a direct send counts its final status once; an idempotent repeat and a queued one count nothing", async () => {
    const series: [string, string][] = [
      ["suppressed", "unsubscribed"],
      ["failed", "template_error"],
      ["suppressed", "no_reachable_channel"],
    ];
    const left = await person(["marketing"]);
    const send = (input: SendMessageInput) => sendMessage(deps, backend, input);
    expect(
      await moved(series, async () => {
        await send(body(left, { category: "marketing", idempotency_key: "m-1" }));
        await send(body(left, { category: "marketing", idempotency_key: "m-1" })); // the repeat
        await send(body(await person(), { template: "broken" }));
        await send(body(await person())); // queued: not final
      }),
    ).toEqual([1, 1, 0]);
    expect(
      (await db.prisma.message.findMany({ select: { status: true, status_reason: true } }))
        .map((m) => `${m.status} ${m.status_reason?.split(":")[0] ?? ""}`)
        .sort(),
    ).toEqual(["failed template_error", "queued ", "suppressed unsubscribed"]);
  });

  test("a cancel counts `cancelled via API` once; a refused second cancel counts nothing", async () => {
    const { message } = await sendMessage(deps, backend, body(await person()));
    const series: [string, string][] = [["cancelled", "cancelled via API"]];
    expect(await moved(series, () => cancelMessage(deps, backend, message.id))).toEqual([1]);
    expect(
      await moved(series, () => cancelMessage(deps, backend, message.id).catch((e: unknown) => e)),
    ).toEqual([0]);
  });
});
