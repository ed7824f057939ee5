// Local decision-model servers for screening tests and the benchmark (docs/screening.md "Adapters"):
// real node:http servers that record every request and answer as the caller scripts, in the
// `http` adapter's shape or as an OpenAI-compatible chat API with token log-probabilities.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A request body as parsed JSON; `messages` is the OpenAI-compatible chat form's. */
interface FakeModelBody {
  messages?: { role: string; content: string }[];
  [field: string]: unknown;
}

export interface FakeModelCall {
  path: string;
  headers: IncomingHttpHeaders;
  /** The request body exactly as received. */
  raw: string;
  body: FakeModelBody;
  /** When it arrived (ms since the epoch). */
  at: number;
}

export interface FakeModelReply {
  status?: number;
  /** Sent as JSON; a string is sent as it is (a malformed body). */
  json?: unknown;
  delayMs?: number;
}

export type FakeModelScript = (call: FakeModelCall) => FakeModelReply;

/** Probabilities as the `http` adapter reads them. */
export interface FakeAnswer {
  urgency: { low: number; normal: number; high: number; critical: number };
  pressure: number;
  deception: number;
  secret: number;
}

export interface FakeModelServer {
  /** `http`: the screening URL; OpenAI-compatible: the base URL (`…/v1`). */
  url: string;
  calls: FakeModelCall[];
  /** Replaces how requests are answered. */
  script(next: FakeModelScript): void;
  /** Calls whose raw body contains `text` (a message's title, say). */
  callsWith(text: string): FakeModelCall[];
  /** Stops listening: connections are refused until `resume`. */
  refuse(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeModelServer(
  script: FakeModelScript,
  options: { path?: string } = {},
): Promise<FakeModelServer> {
  const calls: FakeModelCall[] = [];
  let current = script;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: FakeModelBody = {};
      try {
        body = JSON.parse(raw) as FakeModelBody;
      } catch {
        // recorded as it came
      }
      const call = { path: req.url ?? "", headers: req.headers, raw, body, at: Date.now() };
      calls.push(call);
      const reply = current(call);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
        res.end(typeof reply.json === "string" ? reply.json : JSON.stringify(reply.json ?? {}));
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  const listen = (port: number) =>
    new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${options.path ?? "/screen"}`,
    calls,
    script: (next) => void (current = next),
    callsWith: (text) => calls.filter((call) => call.raw.includes(text)),
    refuse: stop,
    resume: () => listen(port),
    close: async () => {
      if (server.listening) await stop();
    },
  };
}

/** Which of the four questions an OpenAI-style request asks (by its wording). */
export function questionOf(call: FakeModelCall): "urgency" | "pressure" | "deception" | "secret" {
  const messages = (call.body.messages ?? []) as { content?: string }[];
  const asked = messages.map((m) => m.content ?? "").join("\n");
  const question = asked.slice(asked.lastIndexOf("Question:"));
  if (/urgent/i.test(question)) return "urgency";
  if (/pressure/i.test(question)) return "pressure";
  if (/deceptive/i.test(question)) return "deception";
  return "secret";
}

/**
 * A chat completion whose single answer token comes with these alternatives (token → probability),
 * most likely first, as OpenAI reports `logprobs.content[0].top_logprobs`.
 */
export function logprobCompletion(model: string, alternatives: Record<string, number>) {
  const top = Object.entries(alternatives)
    .filter(([, p]) => p > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([token, p]) => ({ token, logprob: Math.log(p), bytes: [...Buffer.from(token)] }));
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    model,
    choices: [
      {
        index: 0,
        finish_reason: "length",
        message: { role: "assistant", content: top[0]?.token ?? "" },
        logprobs: { content: [{ ...top[0], top_logprobs: top }] },
      },
    ],
  };
}

/** The OpenAI-compatible reply to `call` that encodes `answer` in the answer token's log-probabilities. */
export function openAiReply(model: string, answer: FakeAnswer, call: FakeModelCall): FakeModelReply {
  const question = questionOf(call);
  if (question === "urgency") {
    const { low, normal, high, critical } = answer.urgency;
    return { json: logprobCompletion(model, { "1": low, "2": normal, "3": high, "4": critical }) };
  }
  // Case and a leading space vary between tokenizers; the adapter adds them up.
  const yes = answer[question];
  return { json: logprobCompletion(model, { Yes: yes * 0.9, " yes": yes * 0.1, No: 1 - yes }) };
}
