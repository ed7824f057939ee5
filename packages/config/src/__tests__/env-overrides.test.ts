import { envSourceOf, parseEnvValue, readEnvOverrides } from "../index";

describe("parseEnvValue reads YAML scalars", () => {
  const cases: [string, unknown][] = [
    ["9000", 9000],
    ["0.5", 0.5],
    ["true", true],
    ["false", false],
    ["yes", "yes"],
    ["null", null],
    ["22:00", "22:00"],
    ['["sms", "whatsapp"]', ["sms", "whatsapp"]],
    ["[sms]", ["sms"]],
    ["{per_second: 5}", { per_second: 5 }],
    ["'9000'", "9000"],
    ["postgresql://u:p@h/db", "postgresql://u:p@h/db"],
    ["@not-yaml", "@not-yaml"],
    ["a: b: c", "a: b: c"],
  ];
  it.each(cases)("%s", (raw, expected) => {
    expect(parseEnvValue(raw)).toEqual(expected);
  });
});

describe("readEnvOverrides", () => {
  it("maps variables to lower-cased paths and ignores the rest", () => {
    const overrides = readEnvOverrides({
      SVC__WORKER__CONCURRENCY__DELIVERY: "5",
      SVC__API__PORT: "9000",
      PORT: "8000",
      DATABASE_URL: "postgresql://h/db",
      REDIS_URL: "",
      SVC_SECRET_KEY: "not an override",
      SVC_CONFIG: "svc.yaml",
      HOME: "/root",
    });
    expect(overrides.tree).toEqual({
      api: { port: 9000 },
      database: { url: "postgresql://h/db" },
      worker: { concurrency: { delivery: 5 } },
    });
    expect(overrides.sources).toEqual([
      { path: ["api", "port"], variable: "PORT" },
      { path: ["database", "url"], variable: "DATABASE_URL" },
      { path: ["api", "port"], variable: "SVC__API__PORT" },
      { path: ["worker", "concurrency", "delivery"], variable: "SVC__WORKER__CONCURRENCY__DELIVERY" },
    ]);
  });

  it("applies deeper keys after shallower ones", () => {
    const { tree } = readEnvOverrides({
      SVC__API__RATE_LIMIT__BURST: "10",
      SVC__API__RATE_LIMIT: "{burst: 1, per_second: 2}",
    });
    expect(tree).toEqual({ api: { rate_limit: { burst: 10, per_second: 2 } } });
  });

  it("keeps __proto__ as plain data", () => {
    const { tree } = readEnvOverrides({ SVC__CHANNELS: "{__proto__: {polluted: true}}" });
    expect([({} as Record<string, unknown>).polluted, Object.keys(tree.channels as object)]).toEqual([
      undefined,
      ["__proto__"],
    ]);
  });
});

describe("envSourceOf", () => {
  const sources = [
    { path: ["api"], variable: "SVC__API" },
    { path: ["api", "port"], variable: "SVC__API__PORT" },
    { path: ["channels", "sms", "url"], variable: "SVC__CHANNELS__SMS__URL" },
  ];
  const cases: { path: string[]; inFile: string[]; expected: string | undefined }[] = [
    { path: ["api", "port"], inFile: [], expected: "SVC__API__PORT" },
    { path: ["api", "host"], inFile: [], expected: "SVC__API" },
    { path: ["channels"], inFile: [], expected: "SVC__CHANNELS__SMS__URL" },
    { path: ["channels", "sms", "provider"], inFile: [], expected: "SVC__CHANNELS__SMS__URL" },
    { path: ["channels", "sms", "provider"], inFile: ["channels.sms"], expected: undefined },
    { path: ["log", "level"], inFile: [], expected: undefined },
  ];
  it.each(cases)("$path", ({ path, inFile, expected }) => {
    expect(envSourceOf(sources, path, (keys) => inFile.includes(keys.join(".")))).toBe(expected);
  });
});
