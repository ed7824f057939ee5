// The whole configuration (docs/configuration.md, "Keys and defaults"). Every object is strict, so
// a typo is an error, and every default lives here. `prefault({})` runs a missing section through
// its schema so the inner defaults apply.
import { QUEUE_NAMES, type QueueName } from "@svc/core";
import { z } from "zod";
import { channelsSchema } from "./channels-schema";
import { clockTime, httpUrl, ianaTimeZone, period, positiveInt, probability, urlWith } from "./formats";

const KiB = 1024;
const MiB = 1024 * KiB;

// Jobs per worker process and queue, unless configured otherwise.
const DEFAULT_CONCURRENCY: Record<QueueName, number> = {
  ingest: 20,
  policy: 20,
  delivery: 50,
  digests: 5,
  screening: 10,
  callbacks: 10,
  // Webhook POSTs wait on receivers, not on CPU (docs/webhooks.md "Isolation").
  webhooks: 50,
  // Chunk jobs of a few hundred recipients each (docs/broadcasts.md).
  broadcasts: 8,
  scheduler: 1,
};
const concurrencySchema = z.strictObject(
  Object.fromEntries(
    QUEUE_NAMES.map((queue) => [queue, positiveInt.default(DEFAULT_CONCURRENCY[queue])]),
  ) as {
    [Q in QueueName]: z.ZodDefault<typeof positiveInt>;
  },
);

export const LOG_LEVELS = ["error", "warn", "info", "http", "verbose", "debug", "silly"] as const;

const apiSchema = z.strictObject({
  host: z.string().min(1).default("0.0.0.0"),
  port: z.number().int().min(0).max(65535).default(8080),
  // API processes sharing the port (node:cluster, round robin); 1 runs the API in this process.
  processes: z.number().int().min(1).max(64).default(1),
  // Stored without a trailing slash so links are built as `${public_url}/review/...`.
  public_url: httpUrl
    .transform((url) => url.replace(/\/+$/, ""))
    .nullable()
    .default(null),
  max_body_bytes: positiveInt.default(256 * KiB),
  max_broadcast_body_bytes: positiveInt.default(8 * MiB),
  rate_limit: z
    .strictObject({
      enabled: z.boolean().default(true),
      per_second: positiveInt.default(1000),
      burst: positiveInt.default(2000),
      // While Redis is unreachable: `open` serves requests unlimited, `closed` answers 503 with
      // Retry-After (docs/operations.md "While Redis is down").
      on_redis_error: z.enum(["open", "closed"]).default("open"),
    })
    .prefault({}),
});

const postgresUrl = urlWith("postgresql", "postgres");

const databaseSchema = z.strictObject({
  url: postgresUrl.default("postgresql://postgres@127.0.0.1:5432/svc"),
  auto_migrate: z.boolean().default(true),
  // `transaction`: `url` goes through a transaction-mode pooler (PgBouncer), so svc keeps no state
  // on a server connection between transactions (docs/scaling.md "Behind PgBouncer").
  pool_mode: z.enum(["session", "transaction"]).default("session"),
  // A direct connection for what needs a session of its own (migrations, creating the database);
  // null: `url` serves for those too.
  direct_url: postgresUrl.nullable().default(null),
});

const redisNodes = z.array(urlWith("redis", "rediss")).min(1, { error: "expected at least one node" });

const redisSchema = z
  .strictObject({
    url: urlWith("redis", "rediss").default("redis://127.0.0.1:6379"),
    // svc adds a hash tag per queue itself (docs/scaling.md "Where each key lives"), so the prefix
    // holds no braces: with one, every queue would hash to the same Cluster slot.
    prefix: z
      .string()
      .regex(/^[^\s{}]+$/, { error: "expected a non-empty prefix without spaces or braces" })
      .default("svc"),
    // Seeds of a Redis Cluster (any reachable nodes); every Redis use then goes through a cluster client.
    cluster: z.strictObject({ nodes: redisNodes }).nullable().default(null),
    // A primary with replicas watched by Redis Sentinel: `name` of the primary group, the sentinels'
    // addresses. Credentials and the database number of the primary come from `url`.
    sentinel: z
      .strictObject({ name: z.string().min(1), nodes: redisNodes })
      .nullable()
      .default(null),
  })
  .superRefine((redis, ctx) => {
    if (redis.cluster && redis.sentinel)
      ctx.addIssue({
        code: "custom",
        path: ["sentinel"],
        message: "set either redis.cluster or redis.sentinel, not both",
      });
  });

const workerSchema = z.strictObject({
  embedded: z.boolean().default(true),
  concurrency: concurrencySchema.prefault({}),
  max_attempts: positiveInt.default(8),
  max_defer_seconds: positiveInt.default(86400),
  // A `sending` claim is renewed every third of this while its send runs; a dead worker's claim is
  // free this long after its last renewal (docs/operations.md "Recovery guarantees").
  lease_seconds: positiveInt.default(30),
  // Seconds between runs of the recovery sweeps (pending events, due and stranded messages,
  // waiting screening); their grace periods are multiples of it. Tests shorten it.
  sweep_seconds: positiveInt.default(10),
  // Where a worker process serves GET /metrics (Prometheus); null: no metrics listener.
  metrics_port: z.number().int().min(0).max(65535).nullable().default(null),
  metrics_host: z.string().min(1).default("127.0.0.1"),
  // How long a job's lock lives without renewal: a worker killed mid-job (SIGKILL) has its job
  // taken over by another worker once this passes (BullMQ stalled-job recovery).
  lock_ms: positiveInt.default(30000),
});

const policySchema = z.strictObject({
  quiet_hours: z
    .strictObject({ start: clockTime.default("22:00"), end: clockTime.default("08:00") })
    .prefault({}),
  default_timezone: ianaTimeZone.default("UTC"),
});

const approvalsSchema = z.strictObject({
  max_pending_per_agent: positiveInt.default(100),
  callback_url: httpUrl.nullable().default(null),
  /** Requests held open waiting for a decision (GET /v1/approvals/{id}?wait=…), per API process. */
  max_waiters: positiveInt.default(1000),
  /** The same, per API key. */
  max_waiters_per_key: positiveInt.default(50),
  /** How long an "Allow for this session" grant lasts unless the session ends first. */
  session_grant_seconds: positiveInt.default(86400),
});

const screeningSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    adapter: z.enum(["http", "openai"]).default("http"),
    url: httpUrl.nullable().default(null),
    model: z.string().min(1).nullable().default(null),
    hold_above: probability.default(0.5),
    min_confidence: probability.default(0.6),
    on_error: z.enum(["hold", "send"]).default("hold"),
    timeout_ms: positiveInt.default(3000),
  })
  .superRefine((screening, ctx) => {
    if (!screening.enabled) return;
    if (screening.url === null)
      ctx.addIssue({ code: "custom", path: ["url"], message: "required when screening is enabled" });
    if (screening.adapter === "openai" && screening.model === null) {
      ctx.addIssue({ code: "custom", path: ["model"], message: "required for the openai adapter" });
    }
  });

const aiSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    base_url: httpUrl.nullable().default(null),
    model: z.string().min(1).nullable().default(null),
    timeout_ms: positiveInt.default(10000),
    max_tokens: positiveInt.default(800),
  })
  .superRefine((ai, ctx) => {
    if (!ai.enabled) return;
    if (ai.base_url === null)
      ctx.addIssue({ code: "custom", path: ["base_url"], message: "required when ai is enabled" });
    if (ai.model === null)
      ctx.addIssue({ code: "custom", path: ["model"], message: "required when ai is enabled" });
  });

const complianceSchema = z.strictObject({
  us_texting_rules: z.boolean().default(false),
  sms_channels: z.array(z.string().min(1)).default(() => []),
  unknown_state: z.enum(["strict", "federal"]).default("strict"),
});

// Days to keep each kind of row; null keeps it forever (the default). The consent ledger has no
// setting: it is evidence, kept until the person is erased (docs/operations.md "Data retention").
const retentionSchema = z.strictObject({
  events_days: positiveInt.nullable().default(null),
  messages_days: positiveInt.nullable().default(null),
  digests_days: positiveInt.nullable().default(null),
  // Finished webhook deliveries are a log: kept 30 days unless set (docs/decisions.md).
  webhooks_days: positiveInt.nullable().default(30),
  // Rows per DELETE statement: small, so a run never holds many locks at once.
  batch_size: positiveInt.default(500),
  // Most statements per kind and run; the next run (every minute) goes on.
  max_batches: positiveInt.default(20),
});

/** An origin as browsers send it (`https://app.example.com`, `http://localhost:3000`), or `*`. */
const corsOrigin = z.string().refine(
  (value) => {
    if (value === "*") return true;
    try {
      const url = new URL(value);
      // Origins are compared exactly: a `*` inside one would never match anything.
      return (
        (url.protocol === "http:" || url.protocol === "https:") &&
        url.origin === value &&
        !value.includes("*")
      );
    } catch {
      return false;
    }
  },
  { error: "expected an origin such as https://app.example.com (scheme, host and port only), or *" },
);

// The in-app inbox (docs/inbox.md): tokens for people, the browsers' origins, bounds on streams.
const inboxSchema = z.strictObject({
  token_ttl_seconds: positiveInt.max(30 * 86400).default(86400),
  allowed_origins: z
    .array(corsOrigin)
    .max(100)
    .default(() => []),
  // Open streams per person in one API process, and in all of one process (each is a socket).
  max_streams_per_person: positiveInt.max(1000).default(10),
  max_streams: positiveInt.max(1_000_000).default(20_000),
  // A comment line on every open stream this often, so proxies keep idle streams open.
  heartbeat_seconds: positiveInt.max(25).default(15),
});

// Templates render on this many worker threads, each render with a hard time limit; 0 renders
// in the process's own thread, without the hard limit (docs/templates.md "Limits").
const renderSchema = z.strictObject({
  threads: z.number().int().min(0).max(64).default(1),
});

// Requests whose address comes from data (web-push endpoints): internal addresses are refused
// unless this is on, for local development (docs/providers.md "Outbound requests").
const outboundSchema = z.strictObject({
  allow_private_addresses: z.boolean().default(false),
});

// Status webhooks (docs/webhooks.md). `disable_after`: an ISO 8601 period or seconds.
const webhooksSchema = z.strictObject({
  // Lets endpoints be `http://` and internal addresses (development and tests only).
  allow_private_urls: z.boolean().default(false),
  max_attempts: z.number().int().min(1).max(20).default(8),
  disable_after: period.default(3 * 86_400),
  // One try's deadline, answer included; a try that outlives it counts as failed (and is retried).
  timeout_seconds: z.number().int().min(1).max(60).default(10),
});

const logSchema = z.strictObject({
  level: z.enum(LOG_LEVELS).default("info"),
});

export const configSchema = z
  .strictObject({
    api: apiSchema.prefault({}),
    database: databaseSchema.prefault({}),
    redis: redisSchema.prefault({}),
    worker: workerSchema.prefault({}),
    policy: policySchema.prefault({}),
    approvals: approvalsSchema.prefault({}),
    screening: screeningSchema.prefault({}),
    ai: aiSchema.prefault({}),
    compliance: complianceSchema.prefault({}),
    retention: retentionSchema.prefault({}),
    render: renderSchema.prefault({}),
    outbound: outboundSchema.prefault({}),
    inbox: inboxSchema.prefault({}),
    webhooks: webhooksSchema.prefault({}),
    channels: channelsSchema,
    log: logSchema.prefault({}),
  })
  .superRefine((config, ctx) => {
    // Migrations hold a session-level advisory lock, which a transaction-mode pooler cannot keep.
    const { database } = config;
    if (database.pool_mode === "transaction" && database.auto_migrate && database.direct_url === null) {
      ctx.addIssue({
        code: "custom",
        path: ["database", "direct_url"],
        message:
          "required when database.pool_mode is transaction and auto_migrate is on: migrations need a session of their own",
      });
    }
    // A misspelt text channel here would silently switch the US texting rules off for the real one.
    config.compliance.sms_channels.forEach((name, index) => {
      if (!Object.hasOwn(config.channels, name)) {
        ctx.addIssue({
          code: "custom",
          path: ["compliance", "sms_channels", index],
          message: `channel "${name}" is not configured`,
        });
      }
    });
  });

/** The validated configuration as written (file + environment + defaults), without secrets. */
export type ConfigValues = z.output<typeof configSchema>;
