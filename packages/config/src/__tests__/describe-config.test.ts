import { describeConfig, maskUrlPassword, parseConfig } from "../index";

describe("maskUrlPassword", () => {
  const cases: [string, string][] = [
    ["postgresql://app:hunter2@db:5432/svc", "postgresql://app:***@db:5432/svc"],
    ["redis://:hunter2@cache:6379/0", "redis://:***@cache:6379/0"],
    ["postgresql://app:p@ss@db/svc", "postgresql://app:***@db/svc"],
    ["postgresql://app@db/svc", "postgresql://app@db/svc"],
    ["https://svc.example.com/a:b@c", "https://svc.example.com/a:b@c"],
    ["not a url", "not a url"],
  ];
  it.each(cases)("%s", (input, expected) => {
    expect(maskUrlPassword(input)).toBe(expected);
  });
});

describe("describeConfig", () => {
  const config = parseConfig(
    {
      database: { url: "postgresql://app:hunter2@db:5432/svc" },
      redis: { url: "redis://:hunter2@cache:6379" },
      channels: {
        email: {
          provider: "smtp",
          url: "smtp://mailer:hunter2@mail.internal:587",
          password_env: "SMTP_PASSWORD",
          credentials: { key_env: "X" },
        },
      },
    },
    { SVC_SECRET_KEY: "k".repeat(32), SVC_AI_API_KEY: "ai-key" },
  );

  it("reduces secrets to whether they are set and masks URL passwords", () => {
    const described = describeConfig(config);
    expect(described.secrets).toEqual({
      secretKey: true,
      callbackSecret: false,
      screeningApiKey: false,
      aiApiKey: true,
    });
    expect(described.database.url).toBe("postgresql://app:***@db:5432/svc");
    expect(described.redis.url).toBe("redis://:***@cache:6379");
    expect(described.channels).toEqual({
      email: {
        provider: "smtp",
        url: "smtp://mailer:***@mail.internal:587",
        password_env: "SMTP_PASSWORD",
        credentials: { key_env: "X" },
      },
    });
  });

  it("never contains a secret value and leaves the input untouched", () => {
    const text = JSON.stringify(describeConfig(config));
    expect([text.includes("hunter2"), text.includes("ai-key"), text.includes("kkkk")]).toEqual([
      false,
      false,
      false,
    ]);
    expect(config.database.url).toBe("postgresql://app:hunter2@db:5432/svc");
    expect(config.secrets.aiApiKey).toBe("ai-key");
  });

  it("hides secret-looking settings even in a hand-built configuration", () => {
    const handBuilt = {
      ...config,
      channels: { hook: { provider: "webhook" as const, secret: "raw", token: 5 } },
    };
    expect(describeConfig(handBuilt).channels).toEqual({
      hook: { provider: "webhook", secret: "***", token: "***" },
    });
  });
});
