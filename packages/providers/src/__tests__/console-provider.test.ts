import { createProvider } from "../create-provider";
import { channel, NOW, sendRequest } from "./fixtures";

describe("console provider", () => {
  it("writes one JSON line per message and accepts", async () => {
    const lines: string[] = [];
    const provider = createProvider("console", channel({ provider: "console" }), {
      env: {},
      now: () => NOW,
      stream: { write: (chunk: string) => lines.push(chunk) },
    });
    const request = sendRequest({
      channel: "console",
      unsubscribeUrl: "https://svc.example/preferences/tok",
    });
    await expect(provider.send(request)).resolves.toEqual({ ok: true });
    await expect(provider.send(request)).resolves.toEqual({ ok: true });

    expect(lines).toHaveLength(2);
    expect(lines[0]?.endsWith("\n")).toBe(true);
    expect(lines[0]?.slice(0, -1)).not.toContain("\n");
    expect(JSON.parse(lines[0] ?? "")).toEqual({
      at: "2025-03-01T12:00:00.000Z",
      provider: "console",
      id: request.messageId,
      channel: "console",
      to: "user-42",
      recipient: "user-42",
      category: "account",
      importance: "normal",
      content: request.content,
      data: { order: 1001 },
      has_unsubscribe_url: true,
    });
  });
});
