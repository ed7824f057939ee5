import { performance } from "node:perf_hooks";
import { metrics } from "@svc/log";
import { openEventStream, waitFor, type EventStream, type ServerSentEvent } from "@svc/testkit";
import { startInboxHarness, type InboxHarness } from "./inbox-fixtures";

// The inbox stream over HTTP against the real API, Redis and workers (docs/inbox.md "The stream"):
// an item reaches an open stream within a second (delivery → outbox → relay → Redis pub/sub →
// stream), a reconnect with Last-Event-ID misses nothing, changes arrive as `update` with `counts`
// after them, heartbeats, limits, and streams ending when their token does. Also run on a Redis
// Cluster behind PgBouncer: SVC_TEST_FLEET=1 npx jest inbox-stream.test.ts.

let h: InboxHarness;
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
const open: EventStream[] = [];

beforeAll(async () => {
  h = await startInboxHarness("inbox_stream", {
    now,
    config: { inbox: { heartbeat_seconds: 1, max_streams_per_person: 2, max_streams: 6 } },
  });
}, 60_000);
afterEach(() => {
  offsetMs = 0;
  for (const stream of open.splice(0)) stream.close();
});
afterAll(() => h?.close());

async function stream(token: string, headers: Record<string, string> = {}): Promise<EventStream> {
  const s = await h.stream(token, headers);
  open.push(s);
  return s;
}

const data = (event: ServerSentEvent) => JSON.parse(event.data) as Record<string, unknown>;
const isItem = (messageId: string) => (e: ServerSentEvent) =>
  e.event === "item" && data(e).message_id === messageId;

it("answers with an event stream whose first event is the counts, placed at the latest position", async () => {
  await h.person("st-first");
  const token = await h.mint("st-first");
  const s = await stream(token);
  expect(s.status).toBe(200);
  expect(s.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
  expect(s.headers["cache-control"]).toBe("no-store, no-transform");
  const first = await s.next(() => true);
  expect(first).toMatchObject({ event: "counts", id: "0" });
  expect(data(first)).toEqual({ unread: 0, unseen: 0, total: 0 });
});

it("delivers a new item within a second, then the counts", async () => {
  await h.person("st-fast");
  const token = await h.mint("st-fast");
  const s = await stream(token);
  await s.next((e) => e.event === "counts");
  // The first send of the file warms up the send and delivery paths (query plans, JIT).
  await s.next(isItem(await h.send("st-fast", { order: "S-0" })), 10_000);
  const started = performance.now();
  const messageId = await h.send("st-fast", { order: "S-1" });
  const item = await s.next(isItem(messageId), 5_000);
  // From the send request to the event, through the API, the queue, delivery, the outbox relay and Redis.
  expect(item.at - started).toBeLessThan(1_000);
  expect(data(item)).toMatchObject({ message_id: messageId, title: "Order S-1 shipped", read_at: null });
  expect(item.id).toMatch(/^[1-9]\d*$/);
  const counts = await s.next((e) => e.event === "counts" && e.id === item.id);
  expect(data(counts)).toEqual({ unread: 2, unseen: 2, total: 2 });
  // Received by a client: the message is delivered.
  await waitFor(
    async () =>
      (await h.prisma.message.findUniqueOrThrow({ where: { id: messageId } })).status === "delivered",
    {
      what: "delivered",
    },
  );
});

it("takes the token as ?token= for EventSource", async () => {
  await h.person("st-query");
  const token = await h.mint("st-query");
  const viaQuery = await openEventStream(`${h.base}/v1/inbox/stream?token=${encodeURIComponent(token)}`);
  open.push(viaQuery);
  expect(viaQuery.status).toBe(200);
  await viaQuery.next((e) => e.event === "counts");
});

it("resumes after a reconnect with Last-Event-ID without missing an item", async () => {
  await h.person("st-resume");
  const token = await h.mint("st-resume");
  const first = await stream(token);
  await first.next((e) => e.event === "counts");
  const m1 = await h.send("st-resume", { order: "R-1" });
  const seen = await first.next(isItem(m1));
  first.close();

  // While away: two new items, and a change to the one already seen.
  const m2 = await h.send("st-resume", { order: "R-2" });
  const m3 = await h.send("st-resume", { order: "R-3" });
  await h.itemOf(m2);
  await h.itemOf(m3);
  const i1 = data(seen).id as string;
  await h.feed(token).post(`/v1/inbox/items/${i1}/read`).expect(200);

  const again = await stream(token, { "Last-Event-ID": seen.id! });
  const counts = await again.next((e) => e.event === "counts");
  const events = again.events.slice(0, again.events.indexOf(counts));
  expect(events.map((e) => [e.event, data(e).message_id])).toEqual([
    ["item", m2],
    ["item", m3],
    ["update", m1],
  ]);
  expect(data(events[2]!).read_at).not.toBeNull();
  // Positions only grow; the counts carry the last one.
  const ids = events.map((e) => BigInt(e.id!));
  expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids);
  expect(ids[0]! > BigInt(seen.id!)).toBe(true);
  expect(counts.id).toBe(events[2]!.id);
  expect(data(counts)).toEqual({ unread: 2, unseen: 2, total: 3 });

  // Resuming from the very start replays every item once, as it is now, in the order of its last change.
  const replay = await stream(token, { "Last-Event-ID": "0" });
  await replay.next((e) => e.event === "counts");
  expect(replay.events.filter((e) => e.event === "item").map((e) => data(e).message_id)).toEqual([
    m2,
    m3,
    m1,
  ]);
  expect(replay.events.filter((e) => e.event === "update")).toEqual([]);
});

it("sends changes as update events with the counts after them, to every stream of the person", async () => {
  await h.person("st-update");
  const token = await h.mint("st-update");
  const itemId = await h.itemOf(await h.send("st-update"));
  const [a, b] = [await stream(token), await stream(token)];
  await a.next((e) => e.event === "counts");
  await b.next((e) => e.event === "counts");
  await h.feed(token).post(`/v1/inbox/items/${itemId}/archive`).expect(200);
  for (const s of [a, b]) {
    const update = await s.next((e) => e.event === "update");
    expect(data(update)).toMatchObject({ id: itemId, archived_at: expect.any(String) });
    const counts = await s.next((e) => e.event === "counts" && e.id === update.id);
    expect(data(counts)).toEqual({ unread: 0, unseen: 0, total: 0 });
  }
  await h.feed(token).post("/v1/inbox/read-all").expect(200); // nothing live to change: no event
  const itemId2 = await h.itemOf(await h.send("st-update"));
  await a.next((e) => e.event === "item" && data(e).id === itemId2);
  await h.feed(token).post("/v1/inbox/read-all").expect(200);
  const readAll = await a.next((e) => e.event === "update" && data(e).id === itemId2);
  expect(data(readAll).read_at).not.toBeNull();
});

it("sends a heartbeat comment at least every heartbeat_seconds", async () => {
  await h.person("st-beat");
  const s = await stream(await h.mint("st-beat"));
  await s.next((e) => e.event === "counts");
  await waitFor(() => s.comments.length >= 2, { timeoutMs: 6_000, what: "two heartbeats" });
  // One second apart; a loaded machine may delay a timer, never by a heartbeat's worth of seconds.
  expect(s.comments[1]! - s.comments[0]!).toBeLessThan(2_500);
});

it("ends the stream when the token is revoked, and when it expires", async () => {
  await h.person("st-revoke");
  const revoked = await stream(await h.mint("st-revoke"));
  await revoked.next((e) => e.event === "counts");
  await h.as().post("/v1/recipients/st-revoke/preference-token").expect(201);
  await expect(Promise.race([revoked.ended.then(() => "ended"), sleep(3_000)])).resolves.toBe("ended");

  await h.person("st-expire");
  const expiring = await stream(await h.mint("st-expire"));
  await expiring.next((e) => e.event === "counts");
  offsetMs = 86_400_000 + 1_000;
  await expect(Promise.race([expiring.ended.then(() => "ended"), sleep(3_000)])).resolves.toBe("ended");
});

it("bounds streams per person (429) and per process (503)", async () => {
  const openHere = async () => (await metrics.inboxStreams.get()).values[0]?.value ?? 0;
  await waitFor(async () => (await openHere()) === 0, { what: "earlier streams closed" });
  for (const who of ["st-lim-a", "st-lim-b", "st-lim-c", "st-lim-d"]) await h.person(who);
  const a = await h.mint("st-lim-a");
  const two = [await stream(a), await stream(a)];
  for (const s of two) await s.next((e) => e.event === "counts");
  const third = await stream(a);
  expect(third.status).toBe(429);
  expect(JSON.parse(third.body)).toMatchObject({ status: 429, detail: "at most 2 open streams per person" });
  expect(third.headers["retry-after"]).toBe("30");
  const b = await h.mint("st-lim-b");
  const c = await h.mint("st-lim-c");
  const d = await h.mint("st-lim-d");
  for (const token of [b, b, c, c]) expect((await stream(token)).status).toBe(200);
  expect(await openHere()).toBe(6);
  const over = await stream(d);
  expect(over.status).toBe(503);
  expect(JSON.parse(over.body).detail).toBe("this process holds its limit of 6 streams; reconnect");
  // Closing frees a place at once.
  two[0]!.close();
  await waitFor(async () => (await openHere()) === 5, { what: "a place again" });
  expect((await stream(d)).status).toBe(200);
});

function sleep(ms: number): Promise<string> {
  return new Promise((resolve) => setTimeout(() => resolve("timeout"), ms).unref());
}
