import fs from "node:fs";
import path from "node:path";
import { ConfigError, loadConfig, parseConfig, type SvcConfig } from "../index";
import { removeTempDirs, tempDir } from "./temp-dir";

afterAll(removeTempDirs);

const DEFAULTS: Omit<SvcConfig, "secrets" | "source"> = {
  api: {
    host: "0.0.0.0",
    port: 8080,
    processes: 1,
    public_url: null,
    max_body_bytes: 262144,
    max_broadcast_body_bytes: 8388608,
    rate_limit: { enabled: true, per_second: 1000, burst: 2000, on_redis_error: "open" },
  },
  database: {
    url: "postgresql://postgres@127.0.0.1:5432/svc",
    auto_migrate: true,
    pool_mode: "session",
    direct_url: null,
  },
  redis: { url: "redis://127.0.0.1:6379", prefix: "svc", cluster: null, sentinel: null },
  worker: {
    embedded: true,
    concurrency: {
      ingest: 20,
      policy: 20,
      delivery: 50,
      digests: 5,
      screening: 10,
      callbacks: 10,
      webhooks: 50,
      broadcasts: 8,
      scheduler: 1,
    },
    max_attempts: 8,
    max_defer_seconds: 86400,
    lease_seconds: 30,
    sweep_seconds: 10,
    metrics_port: null,
    metrics_host: "127.0.0.1",
    lock_ms: 30000,
  },
  policy: { quiet_hours: { start: "22:00", end: "08:00" }, default_timezone: "UTC" },
  approvals: {
    max_pending_per_agent: 100,
    callback_url: null,
    max_waiters: 1000,
    max_waiters_per_key: 50,
    session_grant_seconds: 86400,
  },
  screening: {
    enabled: false,
    adapter: "http",
    url: null,
    model: null,
    hold_above: 0.5,
    min_confidence: 0.6,
    on_error: "hold",
    timeout_ms: 3000,
  },
  ai: { enabled: false, base_url: null, model: null, timeout_ms: 10000, max_tokens: 800 },
  compliance: { us_texting_rules: false, sms_channels: [], unknown_state: "strict" },
  retention: {
    events_days: null,
    messages_days: null,
    digests_days: null,
    webhooks_days: 30,
    batch_size: 500,
    max_batches: 20,
  },
  render: { threads: 1 },
  outbound: { allow_private_addresses: false },
  inbox: {
    token_ttl_seconds: 86400,
    allowed_origins: [],
    max_streams_per_person: 10,
    max_streams: 20000,
    heartbeat_seconds: 15,
  },
  webhooks: { allow_private_urls: false, max_attempts: 8, disable_after: 259200, timeout_seconds: 10 },
  channels: { console: { provider: "console" } },
  log: { level: "info" },
};

const NO_SECRETS = { secretKey: null, callbackSecret: null, screeningApiKey: null, aiApiKey: null };

describe("loadConfig defaults", () => {
  it("gives every documented default when there is no file and no environment", () => {
    const config = loadConfig({ env: {}, cwd: tempDir() });
    expect(config).toEqual({ ...DEFAULTS, secrets: NO_SECRETS, source: { file: null } });
  });

  it("treats an empty file like no file", () => {
    const cwd = tempDir("# nothing configured yet\n");
    expect(loadConfig({ env: {}, cwd })).toEqual({
      ...DEFAULTS,
      secrets: NO_SECRETS,
      source: { file: path.join(cwd, "svc.yaml") },
    });
  });

  it("gives independent objects on each load (defaults are not shared)", () => {
    const cwd = tempDir();
    const first = loadConfig({ env: {}, cwd });
    first.compliance.sms_channels.push("console");
    first.channels.extra = { provider: "console" };
    const second = loadConfig({ env: {}, cwd });
    expect(second.compliance.sms_channels).toEqual([]);
    expect(Object.keys(second.channels)).toEqual(["console"]);
  });
});

describe("loadConfig file and environment precedence", () => {
  const yaml = [
    "api:",
    "  port: 7000",
    "  public_url: https://svc.example.com/",
    "worker:",
    "  concurrency:",
    "    delivery: 80",
    "policy:",
    "  quiet_hours: { start: '21:30' }",
    "  default_timezone: Europe/Berlin",
    "log:",
    "  level: debug",
  ].join("\n");

  const cases: {
    name: string;
    env: Record<string, string>;
    pick: (c: SvcConfig) => unknown;
    expected: unknown;
  }[] = [
    { name: "file beats default", env: {}, pick: (c) => c.api.port, expected: 7000 },
    { name: "env beats file", env: { SVC__API__PORT: "9000" }, pick: (c) => c.api.port, expected: 9000 },
    { name: "PORT beats file", env: { PORT: "9100" }, pick: (c) => c.api.port, expected: 9100 },
    {
      name: "SVC__API__PORT beats PORT",
      env: { PORT: "9100", SVC__API__PORT: "9200" },
      pick: (c) => c.api.port,
      expected: 9200,
    },
    {
      name: "empty variable counts as unset",
      env: { SVC__API__PORT: "" },
      pick: (c) => c.api.port,
      expected: 7000,
    },
    {
      name: "public_url loses its trailing slash",
      env: {},
      pick: (c) => c.api.public_url,
      expected: "https://svc.example.com",
    },
    {
      name: "file keeps untouched siblings of a nested key",
      env: {},
      pick: (c) => c.worker.concurrency,
      expected: {
        ingest: 20,
        policy: 20,
        delivery: 80,
        digests: 5,
        screening: 10,
        callbacks: 10,
        webhooks: 50,
        broadcasts: 8,
        scheduler: 1,
      },
    },
    {
      name: "deep env key sets only that key",
      env: { SVC__WORKER__CONCURRENCY__DELIVERY: "5" },
      pick: (c) => c.worker.concurrency,
      expected: {
        ingest: 20,
        policy: 20,
        delivery: 5,
        digests: 5,
        screening: 10,
        callbacks: 10,
        webhooks: 50,
        broadcasts: 8,
        scheduler: 1,
      },
    },
    {
      name: "partial quiet hours keep the other default",
      env: {},
      pick: (c) => c.policy.quiet_hours,
      expected: { start: "21:30", end: "08:00" },
    },
    {
      name: "env time string",
      env: { SVC__POLICY__QUIET_HOURS__END: "07:15" },
      pick: (c) => c.policy.quiet_hours,
      expected: { start: "21:30", end: "07:15" },
    },
    {
      name: "env string value",
      env: { SVC__POLICY__DEFAULT_TIMEZONE: "America/New_York" },
      pick: (c) => c.policy.default_timezone,
      expected: "America/New_York",
    },
    {
      name: "env boolean",
      env: { SVC__WORKER__EMBEDDED: "false" },
      pick: (c) => c.worker.embedded,
      expected: false,
    },
    {
      name: "env YAML list",
      env: { SVC__COMPLIANCE__SMS_CHANNELS: '["console"]' },
      pick: (c) => c.compliance.sms_channels,
      expected: ["console"],
    },
    {
      name: "env YAML flow map merges into the section",
      env: { SVC__API__RATE_LIMIT: "{enabled: false}" },
      pick: (c) => c.api.rate_limit,
      expected: { enabled: false, per_second: 1000, burst: 2000, on_redis_error: "open" },
    },
    {
      name: "env null clears an optional value",
      env: { SVC__API__PUBLIC_URL: "null" },
      pick: (c) => c.api.public_url,
      expected: null,
    },
    {
      name: "env keys are lower-cased",
      env: { SVC__LOG__LEVEL: "warn" },
      pick: (c) => c.log.level,
      expected: "warn",
    },
    {
      name: "DATABASE_URL",
      env: { DATABASE_URL: "postgresql://app@db.internal:5432/prod" },
      pick: (c) => c.database.url,
      expected: "postgresql://app@db.internal:5432/prod",
    },
    {
      name: "REDIS_URL",
      env: { REDIS_URL: "rediss://cache.internal:6380/2" },
      pick: (c) => c.redis.url,
      expected: "rediss://cache.internal:6380/2",
    },
    {
      name: "SVC__DATABASE__URL beats DATABASE_URL",
      env: { DATABASE_URL: "postgresql://a@h/one", SVC__DATABASE__URL: "postgresql://a@h/two" },
      pick: (c) => c.database.url,
      expected: "postgresql://a@h/two",
    },
    {
      name: "text that is not YAML stays text",
      env: { SVC__REDIS__PREFIX: "@svc[1]" },
      pick: (c) => c.redis.prefix,
      expected: "@svc[1]",
    },
    {
      name: "DATABASE_DIRECT_URL",
      env: { DATABASE_DIRECT_URL: "postgresql://app@db.internal:5432/prod" },
      pick: (c) => c.database.direct_url,
      expected: "postgresql://app@db.internal:5432/prod",
    },
    {
      name: "REDIS_CLUSTER_NODES is a comma-separated list",
      env: { REDIS_CLUSTER_NODES: "redis://a:7000, redis://b:7001,,redis://c:7002" },
      pick: (c) => c.redis.cluster,
      expected: { nodes: ["redis://a:7000", "redis://b:7001", "redis://c:7002"] },
    },
    {
      name: "SVC__REDIS__SENTINEL sets the Sentinel group",
      env: { SVC__REDIS__SENTINEL: "{name: main, nodes: [redis://s1:26379, redis://s2:26379]}" },
      pick: (c) => c.redis.sentinel,
      expected: { name: "main", nodes: ["redis://s1:26379", "redis://s2:26379"] },
    },
  ];

  it.each(cases)("$name", ({ env, pick, expected }) => {
    expect(pick(loadConfig({ env, cwd: tempDir(yaml) }))).toEqual(expected);
  });
});

describe("loadConfig file location", () => {
  const portFile = (port: number) => `api:\n  port: ${port}\n`;

  it("reads svc.yaml in cwd", () => {
    const cwd = tempDir(portFile(7001));
    const config = loadConfig({ env: {}, cwd });
    expect([config.api.port, config.source.file]).toEqual([7001, path.join(cwd, "svc.yaml")]);
  });

  it("prefers SVC_CONFIG (relative to cwd) over svc.yaml", () => {
    const cwd = tempDir(portFile(7001));
    tempDirWith(cwd, "other.yaml", portFile(7002));
    const config = loadConfig({ env: { SVC_CONFIG: "other.yaml" }, cwd });
    expect([config.api.port, config.source.file]).toEqual([7002, path.join(cwd, "other.yaml")]);
  });

  it("prefers the explicit file over SVC_CONFIG", () => {
    const cwd = tempDir(portFile(7001));
    tempDirWith(cwd, "other.yaml", portFile(7002));
    tempDirWith(cwd, "cli.yaml", portFile(7003));
    expect(loadConfig({ env: { SVC_CONFIG: "other.yaml" }, cwd, file: "cli.yaml" }).api.port).toBe(7003);
  });

  it("fails when SVC_CONFIG names a missing file", () => {
    const cwd = tempDir();
    expect(() => loadConfig({ env: { SVC_CONFIG: "gone.yaml" }, cwd })).toThrow(
      new ConfigError([
        { path: "", message: `configuration file not found: ${path.join(cwd, "gone.yaml")} (SVC_CONFIG)` },
      ]),
    );
  });

  it("fails on a file that is not a mapping", () => {
    const cwd = tempDir("- api\n- port\n");
    expect(() => loadConfig({ env: {}, cwd })).toThrow(
      `invalid configuration: ${path.join(cwd, "svc.yaml")} must hold a mapping of sections`,
    );
  });

  it("fails on YAML syntax errors, naming the file", () => {
    const cwd = tempDir("api:\n  port: 1\n  port: 2\n");
    expect(() => loadConfig({ env: {}, cwd })).toThrow(
      `invalid configuration: cannot read ${path.join(cwd, "svc.yaml")}: `,
    );
  });
});

describe("default console channel", () => {
  const cases = [
    { name: "channels key absent", yaml: "log: { level: info }\n", env: {}, expected: ["console"] },
    { name: "channels: {} means no channels", yaml: "channels: {}\n", env: {}, expected: [] },
    {
      name: "configured channels replace the default",
      yaml: "channels:\n  email: { provider: smtp, host: mail.internal }\n",
      env: {},
      expected: ["email"],
    },
    {
      name: "a channel from the environment replaces the default",
      yaml: "",
      env: { SVC__CHANNELS__HOOK__PROVIDER: "webhook" },
      expected: ["hook"],
    },
  ];

  it.each(cases)("$name", ({ yaml, env, expected }) => {
    expect(Object.keys(loadConfig({ env, cwd: tempDir(yaml) }).channels)).toEqual(expected);
  });

  it("keeps provider-specific settings as written", () => {
    const yaml = [
      "channels:",
      "  sms:",
      "    providers: [twilio, console]",
      "    account_sid: AC123",
      "    auth_token_env: TWILIO_AUTH_TOKEN",
      "    from: '+15550100'",
      "    options: { status_callback: true }",
    ].join("\n");
    expect(loadConfig({ env: {}, cwd: tempDir(yaml) }).channels).toEqual({
      sms: {
        providers: ["twilio", "console"],
        account_sid: "AC123",
        auth_token_env: "TWILIO_AUTH_TOKEN",
        from: "+15550100",
        options: { status_callback: true },
      },
    });
  });
});

describe("parseConfig", () => {
  it("validates an object without touching files", () => {
    const config = parseConfig({ api: { port: 0 } }, { SVC_AI_API_KEY: "k" });
    expect([config.api.port, config.secrets.aiApiKey, config.source.file]).toEqual([0, "k", null]);
  });
});

function tempDirWith(dir: string, name: string, yaml: string): void {
  fs.writeFileSync(path.join(dir, name), yaml);
}
