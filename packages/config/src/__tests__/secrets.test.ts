import {
  assertSecrets,
  channelSecret,
  ConfigError,
  loadConfig,
  missingSecrets,
  parseConfig,
  readSecrets,
  requireCallbackSecret,
} from "../index";
import { removeTempDirs, tempDir } from "./temp-dir";

afterAll(removeTempDirs);

const KEY = "k".repeat(32);

describe("service secrets come only from the environment", () => {
  it("reads the four variables", () => {
    const env = {
      SVC_SECRET_KEY: KEY,
      SVC_CALLBACK_SECRET: "cb",
      SVC_SCREENING_API_KEY: "scr",
      SVC_AI_API_KEY: "ai",
    };
    expect(loadConfig({ env, cwd: tempDir() }).secrets).toEqual({
      secretKey: KEY,
      callbackSecret: "cb",
      screeningApiKey: "scr",
      aiApiKey: "ai",
    });
  });

  it("treats empty variables as unset", () => {
    expect(readSecrets({ SVC_SECRET_KEY: "", SVC_AI_API_KEY: "" })).toEqual({
      secretKey: null,
      callbackSecret: null,
      screeningApiKey: null,
      aiApiKey: null,
    });
  });

  it("rejects a short SVC_SECRET_KEY", () => {
    expect(() => readSecrets({ SVC_SECRET_KEY: "k".repeat(31) })).toThrow(
      "invalid configuration: SVC_SECRET_KEY must be at least 32 characters long",
    );
  });

  const fileCases: [string, string][] = [
    [
      "secret_key: abc\n",
      "secret_key: secrets are read only from the environment: set SVC_SECRET_KEY instead",
    ],
    [
      "approvals:\n  callback_secret: abc\n",
      "approvals.callback_secret: secrets are read only from the environment: set SVC_CALLBACK_SECRET instead",
    ],
    [
      "screening:\n  api_key: abc\n",
      "screening.api_key: secrets are read only from the environment: set SVC_SCREENING_API_KEY instead",
    ],
    [
      "ai:\n  api_key: abc\n",
      "ai.api_key: secrets are read only from the environment: set SVC_AI_API_KEY instead",
    ],
    [
      "channels:\n  hook: { provider: webhook, url: 'https://h.example', secret: abc }\n",
      'channels.hook.secret: secrets are read only from the environment: write "secret_env: <VARIABLE NAME>" and set that variable',
    ],
    [
      "channels:\n  sms: { provider: twilio, auth_token: abc }\n",
      'channels.sms.auth_token: secrets are read only from the environment: write "auth_token_env: <VARIABLE NAME>" and set that variable',
    ],
    [
      "channels:\n  ai: { provider: slack, api_key: abc }\n",
      'channels.ai.api_key: secrets are read only from the environment: write "api_key_env: <VARIABLE NAME>" and set that variable',
    ],
    [
      "channels:\n  email: { provider: smtp, auth: { user: me, password: abc } }\n",
      'channels.email.auth.password: secrets are read only from the environment: write "password_env: <VARIABLE NAME>" and set that variable',
    ],
  ];

  it.each(fileCases)("rejects a secret in the file: %j", (yaml, message) => {
    const cwd = tempDir(yaml);
    expect(() => loadConfig({ env: {}, cwd })).toThrow(
      `invalid configuration: ${message} (in ${cwd}/svc.yaml)`,
    );
  });

  it("rejects a secret value in an override too, so none reaches the configuration tree", () => {
    const env = { SVC__CHANNELS__HOOK__PROVIDER: "webhook", SVC__CHANNELS__HOOK__SECRET: "abc" };
    expect(() => loadConfig({ env, cwd: tempDir() })).toThrow(
      'invalid configuration: channels.hook.secret: secrets are read only from the environment: write "secret_env: <VARIABLE NAME>" and set that variable (set by SVC__CHANNELS__HOOK__SECRET)',
    );
  });
});

describe("channelSecret", () => {
  const config = parseConfig({
    channels: {
      hook: { provider: "webhook", url: "https://h.example", secret_env: "HOOK_SECRET" },
      sms: { provider: "twilio", account_sid: "AC1", auth_token_env: "TWILIO_AUTH_TOKEN" },
    },
  });
  const env = { HOOK_SECRET: "s3cret", TWILIO_AUTH_TOKEN: "" };

  const cases: { channel: string; setting: string; expected: string | undefined }[] = [
    { channel: "hook", setting: "secret", expected: "s3cret" },
    { channel: "hook", setting: "secret_env", expected: "s3cret" },
    { channel: "hook", setting: "signing_key", expected: undefined },
  ];

  it.each(cases)("$channel / $setting", ({ channel, setting, expected }) => {
    expect(channelSecret(config, env, channel, setting)).toBe(expected);
  });

  it("throws when the named variable is empty or unset", () => {
    expect(() => channelSecret(config, env, "sms", "auth_token")).toThrow(
      new ConfigError([
        { path: "channels.sms.auth_token_env", message: "environment variable TWILIO_AUTH_TOKEN is not set" },
      ]),
    );
  });

  it("throws for a channel that is not configured", () => {
    expect(() => channelSecret(config, env, "push", "secret")).toThrow(
      "invalid configuration: channels.push: channel is not configured",
    );
  });
});

describe("missingSecrets / assertSecrets", () => {
  const config = parseConfig(
    {
      approvals: { callback_url: "https://backend.example/decisions" },
      channels: {
        hook: { provider: "webhook", secret_env: "HOOK_SECRET" },
        push: { provider: "apns", credentials: { key_env: "APNS_KEY" } },
      },
    },
    {},
  );

  it("lists every missing secret with its key", () => {
    expect(missingSecrets(config, {}, { requireSecretKey: true })).toEqual([
      { path: "", message: "SVC_SECRET_KEY is not set" },
      { path: "approvals.callback_url", message: "requires SVC_CALLBACK_SECRET to sign callbacks" },
      { path: "channels.hook.secret_env", message: "environment variable HOOK_SECRET is not set" },
      { path: "channels.push.credentials.key_env", message: "environment variable APNS_KEY is not set" },
    ]);
  });

  it("lets the single-process start run without SVC_SECRET_KEY", () => {
    const env = { HOOK_SECRET: "a", APNS_KEY: "b" };
    const withCallbackSecret = { ...config, secrets: { ...config.secrets, callbackSecret: "c" } };
    expect(missingSecrets(withCallbackSecret, env, { requireSecretKey: false })).toEqual([]);
    expect(() => assertSecrets(withCallbackSecret, env, { requireSecretKey: true })).toThrow(
      "invalid configuration: SVC_SECRET_KEY is not set",
    );
  });
});

describe("requireCallbackSecret", () => {
  const raw = { approvals: { callback_url: "https://backend.example/decisions" } };
  const withUrl = parseConfig(raw, {});

  it("refuses a callback URL without SVC_CALLBACK_SECRET, naming the variable", () => {
    expect(() => requireCallbackSecret(withUrl)).toThrow(
      "invalid configuration: approvals.callback_url: requires SVC_CALLBACK_SECRET to sign callbacks",
    );
  });

  it("gives the secret when both are set, and null without a callback URL", () => {
    const signed = parseConfig(raw, { SVC_CALLBACK_SECRET: "cb-secret" });
    expect(requireCallbackSecret(signed)).toBe("cb-secret");
    expect(requireCallbackSecret(parseConfig({}, { SVC_CALLBACK_SECRET: "cb-secret" }))).toBeNull();
    expect(requireCallbackSecret(parseConfig({}, {}))).toBeNull();
  });
});
