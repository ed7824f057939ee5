import { createProvider } from "../create-provider";
import { FailoverProvider } from "../failover-provider";
import type { Provider, SendResult } from "../provider";
import { channel, NOW, sendRequest, useHttpServer } from "./fixtures";

function fixed(name: string, result: SendResult, calls: string[]): Provider {
  return {
    name,
    send: async () => {
      calls.push(name);
      return result;
    },
  };
}

describe("failover across real providers", () => {
  const server = useHttpServer([{ status: 503 }]);

  it("sends through the second provider when the first answers 503", async () => {
    const lines: string[] = [];
    const provider = createProvider(
      "hook",
      channel({ providers: ["webhook", "console"], url: server.url, secret_env: "HOOK_SECRET" }),
      { env: { HOOK_SECRET: "s" }, now: () => NOW, stream: { write: (line: string) => lines.push(line) } },
    );
    expect(provider).toBeInstanceOf(FailoverProvider);
    expect(provider.name).toBe("webhook,console");
    await expect(provider.send(sendRequest())).resolves.toEqual({ ok: true, provider: "console" });
    expect(server.requests).toHaveLength(1);
    expect(lines).toHaveLength(1);
  });
});

describe("FailoverProvider", () => {
  const request = sendRequest();

  it("stops at the first acceptance", async () => {
    const calls: string[] = [];
    const provider = new FailoverProvider([
      fixed("a", { ok: true, providerMessageId: "A1" }, calls),
      fixed("b", { ok: true }, calls),
    ]);
    await expect(provider.send(request)).resolves.toEqual({
      ok: true,
      providerMessageId: "A1",
      provider: "a",
    });
    expect(calls).toEqual(["a"]);
  });

  it("stops at a permanent failure", async () => {
    const calls: string[] = [];
    const provider = new FailoverProvider([
      fixed("a", { ok: false, retryable: false, error: "a 400" }, calls),
      fixed("b", { ok: true }, calls),
    ]);
    await expect(provider.send(request)).resolves.toEqual({
      ok: false,
      retryable: false,
      error: "a 400",
      provider: "a",
    });
    expect(calls).toEqual(["a"]);
  });

  it("lists every retryable error and waits for the soonest Retry-After", async () => {
    const calls: string[] = [];
    const provider = new FailoverProvider([
      fixed("a", { ok: false, retryable: true, error: "a 429", retryAfterMs: 30_000 }, calls),
      fixed("b", { ok: false, retryable: true, error: "b 503", retryAfterMs: 5_000 }, calls),
      fixed("c", { ok: false, retryable: true, error: "c 429", retryAfterMs: 60_000 }, calls),
    ]);
    await expect(provider.send(request)).resolves.toEqual({
      ok: false,
      retryable: true,
      error: "a 429; b 503; c 429",
      retryAfterMs: 5_000,
      provider: "c",
    });
    expect(calls).toEqual(["a", "b", "c"]);
  });

  it("names no wait when one provider named none", async () => {
    const provider = new FailoverProvider([
      fixed("a", { ok: false, retryable: true, error: "a 429", retryAfterMs: 30_000 }, []),
      fixed("b", { ok: false, retryable: true, error: "b timeout after 10000 ms" }, []),
    ]);
    await expect(provider.send(request)).resolves.toEqual({
      ok: false,
      retryable: true,
      error: "a 429; b timeout after 10000 ms",
      provider: "b",
    });
  });

  it("closes every provider", async () => {
    const closed: string[] = [];
    const closing = (name: string): Provider => ({
      ...fixed(name, { ok: true }, []),
      close: async () => {
        closed.push(name);
      },
    });
    await new FailoverProvider([closing("a"), fixed("b", { ok: true }, []), closing("c")]).close();
    expect(closed).toEqual(["a", "c"]);
  });
});
