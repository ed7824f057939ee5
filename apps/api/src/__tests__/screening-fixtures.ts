// Shared setup of the screening tests: the whole service (API, production worker wiring) over a
// real Postgres and Redis, a local decision-model server (docs/screening.md "Adapters") and a local
// webhook sink the `hook` channel delivers to. Messages are sent by an agent through the API.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createLogCapture, createLogger } from "@svc/log";
import {
  openAiReply,
  startFakeModelServer,
  waitFor,
  type FakeAnswer,
  type FakeModelCall,
  type FakeModelReply,
  type FakeModelServer,
} from "@svc/testkit";
import { buildHandlers, queuesWithHandlers, startWorkers, type RunningWorkers } from "@svc/worker";
import { startHarness, type Harness } from "./service-harness";

export const HOOK_SECRET = "screening-test-hook-secret";
export const MODEL = "judge-1";
/** Only in a message's `data`, never rendered: must never reach the model. */
export const DATA_CANARY = "data-only-canary-7731";

/** A calm answer: urgency as the message claims (normal), no risk. Binary fractions sum exactly. */
export const CALM: FakeAnswer = {
  urgency: { low: 0.125, normal: 0.75, high: 0.0625, critical: 0.0625 },
  pressure: 0.02,
  deception: 0.01,
  secret: 0.03,
};

/** Records deliveries (message ids); a body holding a scripted text is answered from its script. */
export class HookSink {
  readonly ids: string[] = [];
  private scripts = new Map<string, number[]>();
  private server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      this.ids.push(String(req.headers["idempotency-key"] ?? ""));
      const script = [...this.scripts].find(([text]) => raw.includes(text))?.[1] ?? [200];
      const status = script.length > 1 ? script.shift()! : script[0]!;
      res.writeHead(status, { "content-type": "application/json" }).end("{}");
    });
  });
  url = "";
  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/notify`;
  }
  /** Sends whose body holds `text` get these statuses in turn. */
  script(text: string, statuses: number[]) {
    this.scripts.set(text, [...statuses]);
  }
  close() {
    return new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

/** A screening verdict as a message shows it (docs/screening.md). */
export interface ScreeningVerdict {
  outcome: string;
  risks: Record<string, number>;
  urgency: { importance: string; confidence: number };
  [field: string]: unknown;
}

/** A message as `GET /v1/messages/{id}` answers, with the fields these tests read. */
interface SettledMessage {
  id: string;
  status: string;
  screening: ScreeningVerdict | null;
  approval_expires_at: string;
  [field: string]: unknown;
}

export interface ScreeningBench {
  h: Harness;
  model: FakeModelServer;
  sink: HookSink;
  /** Keys: the `bot` agent's, a backend's, and a person's who may approve. */
  agentKey: string;
  carefulAgentKey: string;
  backendKey: string;
  reviewerKey: string;
  /** How the model answers about the message whose title is given (others get CALM). */
  answers: Map<string, Scripted>;
  send(key: string, title: string, extra?: Record<string, unknown>): Promise<{ id: string }>;
  /** The message once it left `queued` and `sending`. */
  settled(id: string, timeoutMs?: number): Promise<SettledMessage>;
  close(): Promise<void>;
}

export interface BenchOptions {
  adapter: "http" | "openai";
  onError: "hold" | "send";
  maxAttempts: number;
  timeoutMs?: number;
  /** SVC_SCREENING_API_KEY */
  apiKey?: string;
}

/** An answer, a raw reply, or either chosen by the how-many-th call about the message this is (1, 2…). */
export type Scripted = FakeAnswer | FakeModelReply | ((nth: number) => FakeAnswer | FakeModelReply);

const isAnswer = (value: FakeAnswer | FakeModelReply): value is FakeAnswer => "urgency" in value;

export async function startScreeningBench(name: string, options: BenchOptions): Promise<ScreeningBench> {
  const answers = new Map<string, Scripted>();
  const replyTo = (call: FakeModelCall): FakeModelReply => {
    const title = [...answers.keys()].find((t) => call.raw.includes(t));
    const entry = title === undefined ? CALM : answers.get(title)!;
    const scripted = typeof entry === "function" ? entry(model.callsWith(title!).length) : entry;
    if (!isAnswer(scripted)) return scripted;
    return options.adapter === "openai" ? openAiReply(MODEL, scripted, call) : { json: scripted };
  };
  const model: FakeModelServer = await startFakeModelServer(replyTo, {
    path: options.adapter === "openai" ? "/v1" : "/screen",
  });
  const sink = new HookSink();
  await sink.start();
  const h = await startHarness(name, {
    env: options.apiKey ? { SVC_SCREENING_API_KEY: options.apiKey } : {},
    config: {
      api: { public_url: "https://svc.example.test" },
      worker: { max_attempts: options.maxAttempts },
      channels: { hook: { provider: "webhook", url: sink.url, secret_env: "HOOK_SECRET" } },
      screening: {
        enabled: true,
        adapter: options.adapter,
        url: model.url,
        model: MODEL,
        on_error: options.onError,
        timeout_ms: options.timeoutMs ?? 1_500,
      },
    },
  });
  const logs = createLogCapture();
  const logger = createLogger({ service: `screening-${name}`, level: "info", stream: logs.stream });
  const { handlers } = buildHandlers({
    queues: h.queues,
    logger,
    prisma: h.prisma,
    config: h.config,
    now: () => new Date(),
    env: { HOOK_SECRET },
    deliverInline: true,
  });
  const workers: RunningWorkers = startWorkers({
    config: h.config,
    handlers,
    queues: queuesWithHandlers(handlers),
    logger,
  });
  await h.queues.ready(30_000);

  const admin = h.as();
  const agent = {
    max_importance: "critical",
    description: "Posts deploy results",
    categories: ["transactional"],
    frequency_caps: [],
    approval_ttl_seconds: 600,
    reviewers: ["rev-a", "rev-b"],
  };
  await admin
    .put("/v1/agents/bot")
    .send({ name: "Deploy bot", ...agent })
    .expect(201);
  await admin
    .put("/v1/agents/careful")
    .send({ name: "Careful bot", ...agent, approval: true })
    .expect(201);
  await admin
    .put("/v1/templates/note")
    .send({ locales: { en: { title: "{{ data.title }}", body: "{{ data.body }}" } } })
    .expect(201);
  await admin
    .put("/v1/recipients/alice")
    .send({ locale: "en", addresses: [{ channel: "hook", value: "alice-hook-address" }] })
    .expect(201);

  const bench: ScreeningBench = {
    h,
    model,
    sink,
    agentKey: await h.keyWith(["messages:write", "messages:read"], "bot"),
    carefulAgentKey: await h.keyWith(["messages:write", "messages:read"], "careful"),
    backendKey: await h.keyWith(["messages:write", "messages:read"]),
    reviewerKey: await h.keyWith(["messages:write", "messages:read"]),
    answers,
    async send(key, title, extra = {}) {
      const { data, ...rest } = extra as { data?: Record<string, unknown> };
      const res = await h
        .as(key)
        .post("/v1/messages")
        .send({
          recipient: "alice",
          template: "note",
          category: "transactional",
          channels: ["hook"],
          data: { title, body: `Body of ${title}`, ...data },
          ...rest,
        })
        .expect(202);
      return res.body as { id: string };
    },
    async settled(id, timeoutMs = 15_000) {
      return waitFor(
        async () => {
          const res = await h.as().get(`/v1/messages/${id}`).expect(200);
          return ["queued", "sending"].includes(res.body.status) ? null : (res.body as SettledMessage);
        },
        { timeoutMs, intervalMs: 50, what: `message ${id} settled` },
      );
    },
    async close() {
      await workers.close();
      await Promise.all([model.close(), sink.close()]);
      await h.close();
    },
  };
  return bench;
}

/** Every key of a JSON value, at any depth. */
export function keysDeep(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysDeep);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysDeep(inner)]);
}
