// A local server speaking the OpenAI chat-completions API: records what it was sent and answers
// as the test says (a completion, a status, or a delay).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: { model: string; max_tokens: number; messages: { role: string; content: string }[] };
}

export type Reply = { status?: number; json?: unknown; delayMs?: number };

export interface FakeOpenAi {
  baseUrl: string;
  received: Received[];
  answer(reply: Reply): void;
  close(): Promise<void>;
}

/** A completion whose message content is `content` (an object is sent as its JSON text). */
export const completion = (content: unknown, finishReason = "stop", extra: Record<string, unknown> = {}) => ({
  id: "chatcmpl-test",
  object: "chat.completion",
  choices: [
    {
      index: 0,
      finish_reason: finishReason,
      message: {
        role: "assistant",
        content: typeof content === "string" ? content : JSON.stringify(content),
        ...extra,
      },
    },
  ],
});

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const received: Received[] = [];
  let reply: Reply = { json: completion({ title: "t", body: "b" }) };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({
        path: req.url ?? "",
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Received["body"],
      });
      const current = reply;
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(current.status ?? 200, { "content-type": "application/json" });
        res.end(JSON.stringify(current.json ?? {}));
      };
      if (current.delayMs) setTimeout(send, current.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    answer(next) {
      reply = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
