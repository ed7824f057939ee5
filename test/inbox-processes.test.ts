import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { createApiKey } from "@svc/engine";
import { createPrisma } from "@svc/store";
import {
  freePort,
  openEventStream,
  reserveTestDatabase,
  SourceProcesses,
  waitFor,
  type EventStream,
  type ServerSentEvent,
} from "@svc/testkit";

// Items cross processes (docs/inbox.md "The stream"): a split deployment of one worker process and
// two API processes, each its own Node process. A message sent through API 1 is delivered by the
// worker, whose outbox relay publishes the item's notice on Redis; the stream held by API 2 reads
// the item and sends it within a second. A client that lost API 2 resumes on API 1 with
// Last-Event-ID and misses nothing.

// The processes under test create and migrate it; afterAll drops it.
const database = reserveTestDatabase("inbox_proc");
const { databaseUrl } = database;
const env = {
  PATH: process.env.PATH,
  DATABASE_URL: databaseUrl,
  REDIS_URL: process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379",
  SVC_SECRET_KEY: randomBytes(32).toString("base64url"),
  SVC__REDIS__PREFIX: `svc-test-inbox-proc-${randomBytes(3).toString("hex")}`,
  SVC__CHANNELS__IN_APP__PROVIDER: "inbox",
  SVC__WORKER__EMBEDDED: "false",
  SVC__LOG__LEVEL: "warn",
};
const streams: EventStream[] = [];
const processes = new SourceProcesses(env);
const start = (entry: string, extra: Record<string, string> = {}) => processes.start(entry, extra);
const answers = (url: string) => processes.answers(url);

afterAll(async () => {
  for (const s of streams) s.close();
  processes.killAll();
  await database.drop();
}, 60_000);

it("an item sent through one API process reaches a stream on another, delivered by a worker process", async () => {
  const [api1, api2, metrics] = [await freePort(), await freePort(), await freePort()];
  start("apps/api/src/main.ts", { PORT: String(api1) });
  await answers(`http://127.0.0.1:${api1}/readyz`); // it created the database and migrated
  start("apps/api/src/main.ts", { PORT: String(api2) });
  start("apps/worker/src/main.ts", { SVC__WORKER__METRICS_PORT: String(metrics) });
  await answers(`http://127.0.0.1:${api2}/readyz`);
  await answers(`http://127.0.0.1:${metrics}/metrics`);

  const prisma = createPrisma({ databaseUrl });
  const { key } = await createApiKey(
    { prisma, now: () => new Date() },
    { name: "test", scopes: ["admin"], agent: null },
  );
  await prisma.$disconnect();
  const call = async (port: number, method: string, route: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status).toBeLessThan(300);
    return (await res.json()) as Record<string, unknown>;
  };
  await call(api1, "PUT", "/v1/templates/note", {
    locales: { en: { title: "Note {{ data.n }}", body: "Hello" } },
  });
  await call(api1, "PUT", "/v1/recipients/proc-ada", { locale: "en" });
  const { token } = (await call(api1, "POST", "/v1/recipients/proc-ada/inbox-token")) as { token: string };
  const send = async (n: number) =>
    (
      await call(api1, "POST", "/v1/messages", {
        recipient: "proc-ada",
        template: "note",
        category: "transactional",
        channels: ["in_app"],
        data: { n },
      })
    ).id as string;
  const itemOf = (s: EventStream, messageId: string) =>
    s.next((e: ServerSentEvent) => e.event === "item" && JSON.parse(e.data).message_id === messageId, 10_000);

  const onApi2 = await openEventStream(`http://127.0.0.1:${api2}/v1/inbox/stream`, {
    Authorization: `Bearer ${token}`,
  });
  streams.push(onApi2);
  expect(onApi2.status).toBe(200);
  await onApi2.next((e) => e.event === "counts");

  await itemOf(onApi2, await send(1)); // the first one warms the processes up
  const started = performance.now();
  const second = await itemOf(onApi2, await send(2));
  expect(second.at - started).toBeLessThan(1_000);
  expect(JSON.parse(second.data)).toMatchObject({ title: "Note 2", body: "Hello" });

  // API 2 is lost; meanwhile another item comes; the client resumes on API 1.
  onApi2.close();
  const third = await send(3);
  await waitFor(async () => {
    const res = await fetch(`http://127.0.0.1:${api1}/v1/inbox/counts`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return ((await res.json()) as { total: number }).total === 3;
  });
  const onApi1 = await openEventStream(`http://127.0.0.1:${api1}/v1/inbox/stream`, {
    Authorization: `Bearer ${token}`,
    "Last-Event-ID": second.id!,
  });
  streams.push(onApi1);
  const resumed = await itemOf(onApi1, third);
  expect(BigInt(resumed.id!) > BigInt(second.id!)).toBe(true);
  expect(onApi1.events.filter((e) => e.event === "item")).toHaveLength(1);
}, 120_000);
