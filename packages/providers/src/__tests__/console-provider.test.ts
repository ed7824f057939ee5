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

  // The finding: the console wrote live preference, unsubscribe and review tokens to the log.
  it("never prints a live link token, wherever the link is", async () => {
    const lines: string[] = [];
    const provider = createProvider("console", channel({ provider: "console" }), {
      env: {},
      now: () => NOW,
      stream: { write: (chunk: string) => lines.push(chunk) },
    });
    const token = (seed: string) => seed.repeat(43).slice(0, 43);
    const [preferences, unsubscribe, review] = [token("Ab3_"), token("x-Y9"), token("Qq0z")];
    const base = "https://svc.example";
    await provider.send(
      sendRequest({
        channel: "console",
        content: {
          title: `Review: ${base}/review/${review}`,
          body: `Manage: ${base}/preferences/${preferences}\nLeave: ${base}/preferences/${unsubscribe}/unsubscribe`,
          url: `${base}/review/${review}`,
          thread: null,
          html: `<a href="${base}/preferences/${preferences}">prefs</a>`,
        },
        unsubscribeUrl: `${base}/preferences/${unsubscribe}/unsubscribe`,
        preferencesUrl: `${base}/preferences/${preferences}`,
        trackingToken: token("Tt7-"),
      }),
    );
    const [line = ""] = lines;
    for (const secret of [preferences, unsubscribe, review, token("Tt7-")])
      expect(line).not.toContain(secret);
    expect(JSON.parse(line).content).toEqual({
      title: `Review: ${base}/review/[token]`,
      body: `Manage: ${base}/preferences/[token]\nLeave: ${base}/preferences/[token]/unsubscribe`,
      url: `${base}/review/[token]`,
      thread: null,
      html: `<a href="${base}/preferences/[token]">prefs</a>`,
    });
  });
});
