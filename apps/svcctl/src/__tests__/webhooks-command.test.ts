import { newId } from "@svc/core";
import { webhookTryJobId } from "@svc/engine";
import { createQueues, type Queues } from "@svc/queue";
import { insertWebhookDeliveries } from "@svc/store";
import { createTestDatabase, testRedisPrefix, type TestDatabase, type TestRedisPrefix } from "@svc/testkit";
import { svcctl } from "./harness";

// `svcctl webhooks list|create|deliveries|retry` against real Postgres and Redis (own database and
// prefix), through the same use cases as /v1/webhooks….

let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
let env: Record<string, string>;

beforeAll(async () => {
  db = await createTestDatabase("svcctl_webhooks");
  redis = testRedisPrefix("svcctl_webhooks");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  await queues.ready();
  // The service's SVC_SECRET_KEY: endpoint secrets are derived from it (docs/webhooks.md "Secrets").
  env = {
    DATABASE_URL: db.databaseUrl,
    REDIS_URL: redis.redisUrl,
    SVC__REDIS__PREFIX: redis.prefix,
    SVC_SECRET_KEY: "svcctl-webhooks-test-key-0123456789abcdef",
  };
});
afterAll(async () => {
  await queues.close();
  await redis.cleanup();
  await db.drop();
});

describe("svcctl webhooks", () => {
  let endpointId = "";

  it("create prints the endpoint and its secret once; list shows it without the secret", async () => {
    const run = await svcctl(
      [
        "webhooks",
        "create",
        "https://203.0.113.7.nip.example/svc",
        "--events",
        "message.failed, recipient.*",
        "--json",
      ],
      env,
    );
    expect(run.code).toBe(0);
    const created = JSON.parse(run.stdout) as { id: string; secret: string; events: string[] };
    expect(created).toMatchObject({
      id: expect.stringMatching(/^whk_/),
      events: ["message.failed", "recipient.*"],
      enabled: true,
      secret: expect.stringMatching(/^whsec_/),
    });
    endpointId = created.id;
    const list = await svcctl(["webhooks", "list", "--json"], env);
    expect(JSON.parse(list.stdout)).toEqual({
      items: [expect.objectContaining({ id: endpointId, url: "https://203.0.113.7.nip.example/svc" })],
      next_cursor: null,
    });
    expect(list.stdout).not.toContain(created.secret);
    const table = await svcctl(["webhooks", "list"], env);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+URL\s+EVENTS\s+ENABLED\s+FAILING SINCE$/);
  });

  it("create refuses an internal address and an unknown event type", async () => {
    const internal = await svcctl(["webhooks", "create", "https://127.0.0.1/x", "--events", "*"], env);
    expect(internal.code).not.toBe(0);
    expect(internal.stderr).toContain("must not point at an internal network address");
    const unknown = await svcctl(
      ["webhooks", "create", "https://hooks.example.com/x", "--events", "nope"],
      env,
    );
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("unknown event type 'nope'");
  });

  it("deliveries lists the log; retry puts a failed delivery back with a job due now", async () => {
    const deliveryId = newId("webhookDelivery");
    await insertWebhookDeliveries(db.prisma, [
      {
        id: deliveryId,
        endpointId,
        eventId: "whe_1_X",
        type: "message.failed",
        body: JSON.stringify({ id: "whe_1_X", type: "message.failed", created_at: "x", data: {} }),
        now: new Date(),
      },
    ]);
    await db.prisma.webhookDelivery.update({
      where: { id: deliveryId },
      data: {
        status: "failed",
        attempts: 8,
        last_status_code: 503,
        last_error: "webhook 503",
        next_attempt_at: null,
      },
    });
    const failed = await svcctl(["webhooks", "deliveries", endpointId, "--status", "failed", "--json"], env);
    expect(JSON.parse(failed.stdout)).toEqual({
      items: [
        {
          id: deliveryId,
          event_id: "whe_1_X",
          type: "message.failed",
          status: "failed",
          attempts: 8,
          last_status_code: 503,
          last_error: "webhook 503",
          next_attempt_at: null,
          created_at: expect.any(String),
        },
      ],
      next_cursor: null,
    });
    const retry = await svcctl(["webhooks", "retry", endpointId, deliveryId, "--json"], env);
    expect(retry.code).toBe(0);
    const retried = JSON.parse(retry.stdout) as { status: string; attempts: number; next_attempt_at: string };
    expect(retried).toMatchObject({ id: deliveryId, status: "pending", attempts: 0 });
    const jobId = webhookTryJobId(deliveryId, new Date(retried.next_attempt_at));
    expect(await queues.queue("webhooks").getJobState(jobId)).toBe("waiting");
    const again = await svcctl(["webhooks", "retry", endpointId, deliveryId], env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("only failed deliveries can be retried");
  });
});
