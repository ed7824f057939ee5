import { ConfigError } from "@svc/config";
import { createProvider, createProviders } from "../create-provider";
import { channel, providerContext } from "./fixtures";

const context = providerContext({ HOOK_SECRET: "s", TWILIO_AUTH_TOKEN: "t" });

function issuesOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("createProvider", () => {
  it("builds a single provider under its own name", () => {
    expect(createProvider("c", channel({ provider: "console" }), context).name).toBe("console");
  });

  it.each([
    [
      { provider: "webhook", secret_env: "HOOK_SECRET" },
      [{ path: "channels.hook.url", message: "required" }],
    ],
    [
      { provider: "webhook", url: "ftp://x", secret_env: "HOOK_SECRET" },
      [{ path: "channels.hook.url", message: "expected an http(s) URL" }],
    ],
    [
      { provider: "webhook", url: "https://x.example", secret_env: "MISSING" },
      [{ path: "channels.hook.secret_env", message: "environment variable MISSING is not set" }],
    ],
    [
      { provider: "webhook", url: "https://x.example", secret_env: "HOOK_SECRET", timeout: 5 },
      [{ path: "channels.hook.timeout", message: "unknown setting for webhook" }],
    ],
    [
      { provider: "webhook", url: "https://x.example", secret_env: "HOOK_SECRET", timeout_ms: 0 },
      [{ path: "channels.hook.timeout_ms", message: "Too small: expected number to be >0" }],
    ],
    [
      { provider: "twilio", account_sid: "AC1", auth_token_env: "TWILIO_AUTH_TOKEN" },
      [{ path: "channels.hook.from", message: "set either from or messaging_service_sid" }],
    ],
    [
      { provider: "console", url: "https://x.example" },
      [{ path: "channels.hook.url", message: "unknown setting for console" }],
    ],
  ])("rejects %j", (settings, issues) => {
    expect(issuesOf(() => createProvider("hook", channel(settings), context))).toEqual(issues);
  });

  it("accepts the settings of every provider of a failover list", () => {
    const provider = createProvider(
      "sms",
      channel({
        providers: ["twilio", "webhook"],
        account_sid: "AC1",
        auth_token_env: "TWILIO_AUTH_TOKEN",
        from: "+15550100",
        url: "https://x.example",
        secret_env: "HOOK_SECRET",
      }),
      context,
    );
    expect(provider.name).toBe("twilio,webhook");
  });

  it("reports the problems of every channel at once", () => {
    expect(
      issuesOf(() =>
        createProviders(
          {
            a: channel({ provider: "webhook", url: "https://x.example" }),
            b: channel({ provider: "slack" }),
            c: channel({ provider: "console" }),
          },
          context,
        ),
      ),
    ).toEqual([
      { path: "channels.a.secret_env", message: "required" },
      { path: "channels.b.token_env", message: "required" },
    ]);
  });

  it("returns one provider per channel", () => {
    const providers = createProviders({ console: channel({ provider: "console" }) }, context);
    expect([...providers.keys()]).toEqual(["console"]);
  });
});
