import { ConfigError, loadConfig } from "../index";
import { removeTempDirs, tempDir } from "./temp-dir";

afterAll(removeTempDirs);

function errorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("invalid environment values name the key and the variable", () => {
  const cases: [Record<string, string>, string][] = [
    [{ SVC__API__PORT: "'9000'" }, "api.port: expected number, received string (set by SVC__API__PORT)"],
    [{ PORT: "http" }, "api.port: expected number, received string (set by PORT)"],
    [
      { SVC__API__PORT: "70000" },
      "api.port: expected a number <= 65535, received 70000 (set by SVC__API__PORT)",
    ],
    [{ SVC__API__PROT: "1" }, "api.prot: unknown key (set by SVC__API__PROT)"],
    [{ SVC__APU__PORT: "1" }, "apu: unknown key (set by SVC__APU__PORT)"],
    [
      { SVC__WORKER__CONCURRENCY__DELIVERY: "0" },
      "worker.concurrency.delivery: expected a number > 0, received 0 (set by SVC__WORKER__CONCURRENCY__DELIVERY)",
    ],
    [
      { SVC__WORKER__CONCURRENCY__EMAIL: "3" },
      "worker.concurrency.email: unknown key (set by SVC__WORKER__CONCURRENCY__EMAIL)",
    ],
    [
      { SVC__WORKER__MAX_ATTEMPTS: "1.5" },
      "worker.max_attempts: expected integer, received 1.5 (set by SVC__WORKER__MAX_ATTEMPTS)",
    ],
    [
      { SVC__WORKER__EMBEDDED: "yes" },
      "worker.embedded: expected boolean, received string (set by SVC__WORKER__EMBEDDED)",
    ],
    [
      { SVC__POLICY__DEFAULT_TIMEZONE: "Mars/Olympus" },
      'policy.default_timezone: unknown IANA time zone "Mars/Olympus" (set by SVC__POLICY__DEFAULT_TIMEZONE)',
    ],
    [
      { SVC__POLICY__DEFAULT_TIMEZONE: "+01:00" },
      'policy.default_timezone: unknown IANA time zone "+01:00" (set by SVC__POLICY__DEFAULT_TIMEZONE)',
    ],
    [
      { SVC__POLICY__QUIET_HOURS__START: "25:00" },
      "policy.quiet_hours.start: expected a time as HH:MM (00:00 to 23:59) (set by SVC__POLICY__QUIET_HOURS__START)",
    ],
    [
      { SVC__POLICY__QUIET_HOURS__END: "8:00" },
      "policy.quiet_hours.end: expected a time as HH:MM (00:00 to 23:59) (set by SVC__POLICY__QUIET_HOURS__END)",
    ],
    [
      { SVC__LOG__LEVEL: "loud" },
      'log.level: expected one of "error", "warn", "info", "http", "verbose", "debug", "silly", received "loud" (set by SVC__LOG__LEVEL)',
    ],
    [
      { SVC__COMPLIANCE__UNKNOWN_STATE: "lenient" },
      'compliance.unknown_state: expected one of "strict", "federal", received "lenient" (set by SVC__COMPLIANCE__UNKNOWN_STATE)',
    ],
    [
      { SVC__COMPLIANCE__SMS_CHANNELS: "sms" },
      "compliance.sms_channels: expected array, received string (set by SVC__COMPLIANCE__SMS_CHANNELS)",
    ],
    [
      { SVC__COMPLIANCE__SMS_CHANNELS: '["sms"]' },
      'compliance.sms_channels.0: channel "sms" is not configured (set by SVC__COMPLIANCE__SMS_CHANNELS)',
    ],
    [
      { DATABASE_URL: "mysql://db/svc" },
      "database.url: expected a postgresql:// or postgres:// URL (set by DATABASE_URL)",
    ],
    [{ REDIS_URL: "127.0.0.1:6379" }, "redis.url: expected a redis:// or rediss:// URL (set by REDIS_URL)"],
    [
      { SVC__REDIS__PREFIX: "svc{1}" },
      "redis.prefix: expected a non-empty prefix without spaces or braces (set by SVC__REDIS__PREFIX)",
    ],
    [
      { REDIS_CLUSTER_NODES: "127.0.0.1:7000" },
      "redis.cluster.nodes.0: expected a redis:// or rediss:// URL (set by REDIS_CLUSTER_NODES)",
    ],
    [
      { REDIS_CLUSTER_NODES: "redis://a:7000", SVC__REDIS__SENTINEL: "{name: m, nodes: [redis://s:26379]}" },
      "redis.sentinel: set either redis.cluster or redis.sentinel, not both (set by SVC__REDIS__SENTINEL)",
    ],
    [
      { SVC__DATABASE__POOL_MODE: "transaction" },
      "database.direct_url: required when database.pool_mode is transaction and auto_migrate is on: migrations need a session of their own (set by SVC__DATABASE__POOL_MODE)",
    ],
    [
      { SVC__DATABASE__POOL_MODE: "statement" },
      'database.pool_mode: expected one of "session", "transaction", received "statement" (set by SVC__DATABASE__POOL_MODE)',
    ],
    [
      { SVC__API__PUBLIC_URL: "svc.example.com" },
      "api.public_url: expected a http:// or https:// URL (set by SVC__API__PUBLIC_URL)",
    ],
    [
      { SVC__SCREENING__HOLD_ABOVE: "1.5" },
      "screening.hold_above: expected a number <= 1, received 1.5 (set by SVC__SCREENING__HOLD_ABOVE)",
    ],
    [
      { SVC__SCREENING__ENABLED: "true" },
      "screening.url: required when screening is enabled (set by SVC__SCREENING__ENABLED)",
    ],
    [
      {
        SVC__SCREENING__ENABLED: "true",
        SVC__SCREENING__ADAPTER: "openai",
        SVC__SCREENING__URL: "https://llm.internal/v1",
      },
      "screening.model: required for the openai adapter (set by SVC__SCREENING__ADAPTER)",
    ],
    [
      { SVC__AI__ENABLED: "true", SVC__AI__MODEL: "small" },
      "ai.base_url: required when ai is enabled (set by SVC__AI__ENABLED)",
    ],
    [
      { SVC__CHANNELS__HOOK__URL: "https://example.com/hook" },
      "channels.hook.provider: required: one of console, webhook, smtp, twilio, webpush, fcm, apns, slack, inbox (or a providers list for failover) (set by SVC__CHANNELS__HOOK__URL)",
    ],
    [
      { SVC__CHANNELS__HOOK__PROVIDER: "pigeon" },
      'channels.hook.provider: expected one of "console", "webhook", "smtp", "twilio", "webpush", "fcm", "apns", "slack", "inbox", received "pigeon" (set by SVC__CHANNELS__HOOK__PROVIDER)',
    ],
    [
      { SVC__CHANNELS__HOOK__PROVIDER: "webhook", SVC__CHANNELS__HOOK__SECRET_ENV: "not a name" },
      "channels.hook.secret_env: expected the name of an environment variable (set by SVC__CHANNELS__HOOK__SECRET_ENV)",
    ],
  ];

  it.each(cases)("%j", (env, message) => {
    const error = errorOf(() => loadConfig({ env, cwd: tempDir() }));
    expect(error.message).toBe(`invalid configuration: ${message}`);
  });

  it("rejects an override with an empty key segment", () => {
    expect(() => loadConfig({ env: { SVC__API____PORT: "1" }, cwd: tempDir() })).toThrow(
      'invalid configuration: SVC__API____PORT: empty key segment (use one "__" between keys)',
    );
  });
});

describe("invalid file values name the key and the file", () => {
  const cases: [string, string][] = [
    ["api:\n  port: '9000'\n", "api.port: expected number, received string"],
    ["api:\n  max_body_bytes: -1\n", "api.max_body_bytes: expected a number > 0, received -1"],
    ["api: 8080\n", "api: expected object, received 8080"],
    ["api:\n  rate_limit:\n    burts: 10\n", "api.rate_limit.burts: unknown key"],
    ["databse:\n  url: postgresql://x@h/db\n", "databse: unknown key"],
    [
      "policy:\n  quiet_hours: { start: '22:00', end: 0800 }\n",
      "policy.quiet_hours.end: expected string, received 800",
    ],
    [
      "policy:\n  default_timezone: Europe/Berlim\n",
      'policy.default_timezone: unknown IANA time zone "Europe/Berlim"',
    ],
    [
      "approvals:\n  max_pending_per_agent: 0\n",
      "approvals.max_pending_per_agent: expected a number > 0, received 0",
    ],
    [
      "compliance:\n  sms_channels: [console, console2]\n",
      'compliance.sms_channels.1: channel "console2" is not configured',
    ],
    ["channels:\n  'bad name': { provider: console }\n", "channels.bad name: invalid channel name"],
    [
      "channels:\n  sms: { provider: twilio, providers: [twilio] }\n",
      "channels.sms.providers: set either provider or providers, not both",
    ],
    ["channels:\n  sms: { providers: [] }\n", "channels.sms.providers: expected at least 1 item(s)"],
    [
      "channels:\n  sms: { providers: [twilio, twilio] }\n",
      'channels.sms.providers.1: duplicate provider "twilio"',
    ],
    ["channels:\n  sms: null\n", "channels.sms: expected object, received null"],
    ["channels:\n", "channels: expected record, received null"],
  ];

  it.each(cases)("%j", (yaml, message) => {
    const cwd = tempDir(yaml);
    const error = errorOf(() => loadConfig({ env: {}, cwd }));
    expect(error.message).toBe(`invalid configuration: ${message} (in ${cwd}/svc.yaml)`);
  });

  it("lists every problem at once, each with its path", () => {
    const cwd = tempDir("api:\n  port: x\n  hots: y\nlog:\n  level: loud\n");
    const error = errorOf(() => loadConfig({ env: { SVC__REDIS__PREFIX: "a b" }, cwd }));
    expect(error.issues).toEqual([
      { path: "api.port", message: "expected number, received string", source: `in ${cwd}/svc.yaml` },
      { path: "api.hots", message: "unknown key", source: `in ${cwd}/svc.yaml` },
      {
        path: "redis.prefix",
        message: "expected a non-empty prefix without spaces or braces",
        source: "set by SVC__REDIS__PREFIX",
      },
      {
        path: "log.level",
        message:
          'expected one of "error", "warn", "info", "http", "verbose", "debug", "silly", received "loud"',
        source: `in ${cwd}/svc.yaml`,
      },
    ]);
  });
});
