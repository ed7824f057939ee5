import { Prisma, type PrismaClient } from "@svc/store";
import { webhookEventsIn, type TestDatabase } from "@svc/testkit";
import type { JobContext, Queues } from "@svc/queue";
import type { AcceptEventDeps } from "../../events/accept-event";
import { ingestEventJob } from "../ingest-job";
import type { IngestDeps } from "../ingest-types";
import {
  digestPolicy,
  makeRecipient,
  makeRule,
  makeTemplate,
  postEvent,
  startIngestEnv,
  type IngestTestEnv,
} from "./ingest-fixtures";

// The webhook events of ingest (docs/webhooks.md): `event.processed` and each new message's status
// in the statement that writes them, `event.failed` with the failure; nothing for a digest join.

let db: TestDatabase;
let deps: IngestDeps & { queues: Queues };
let accept: AcceptEventDeps;
let env: IngestTestEnv;

const job = (attemptsMade: number): JobContext => ({
  id: "j",
  name: "ingest-event",
  queue: "ingest",
  attemptsMade,
  attempts: 8,
});

beforeAll(async () => {
  env = await startIngestEnv("ingest_webhook_events");
  ({ db, deps, accept } = env);
  await makeTemplate(db.prisma, "tpl");
  await makeRecipient(db.prisma, "ann");
  await makeRule(db.prisma, { key: "ship", event: "order.shipped" });
  await makeRule(db.prisma, { key: "ship-digest", event: "order.shipped", digest: digestPolicy() });
  await makeRule(db.prisma, { key: "ship-muted", event: "order.shipped", channels: ["fax"] });
});
afterAll(() => env.close());
beforeEach(() => db.prisma.$executeRaw`DELETE FROM outbox`);

const processedAt = async (prisma: PrismaClient, id: string) =>
  (await prisma.event.findUniqueOrThrow({ where: { id } })).processed_at!.toISOString();

it("a processed event: event.processed, then each message's status; the digest join adds none", async () => {
  const id = await postEvent(accept, { name: "order.shipped", recipient: "ann" });
  expect(await ingestEventJob(deps)({ eventId: id }, job(0))).toMatchObject({ status: "processed" });
  const messages = await db.prisma.message.findMany({ where: { event_id: id }, orderBy: { rule: "asc" } });
  expect(messages.map((m) => [m.rule, m.status])).toEqual([
    ["ship", "queued"],
    ["ship-muted", "suppressed"],
  ]);
  const at = await processedAt(db.prisma, id);
  const events = await webhookEventsIn(db.prisma);
  expect(events[0]).toEqual({
    type: "event.processed",
    occurred_at: at,
    subject: { kind: "event", id },
    snapshot: { status: "processed" },
  });
  expect(events.slice(1).sort((a, b) => a.type.localeCompare(b.type))).toEqual([
    {
      type: "message.queued",
      occurred_at: at,
      subject: { kind: "message", id: messages[0]!.id },
      snapshot: { status: "queued", status_reason: null },
    },
    {
      type: "message.suppressed",
      occurred_at: at,
      subject: { kind: "message", id: messages[1]!.id },
      snapshot: { status: "suppressed", status_reason: messages[1]!.status_reason },
    },
  ]);
  expect(events).toHaveLength(3);
});

it("an event failed on its last attempt: event.failed with the error, nothing else", async () => {
  const id = await postEvent(accept, { name: "order.shipped", recipient: "broken" });
  const twice = [
    { channel: "email", value: "x@example.com" },
    { channel: "email", value: "x@example.com" },
  ];
  await db.prisma.event.update({
    where: { id },
    data: { recipient_profile: { addresses: twice } as Prisma.InputJsonValue },
  });
  await expect(ingestEventJob(deps)({ eventId: id }, job(3))).rejects.toThrow();
  expect(await webhookEventsIn(db.prisma)).toEqual([]);
  await expect(ingestEventJob(deps)({ eventId: id }, job(7))).rejects.toThrow();
  const event = await db.prisma.event.findUniqueOrThrow({ where: { id } });
  expect(event.status).toBe("failed");
  const events = await webhookEventsIn(db.prisma);
  expect(events).toEqual([
    {
      type: "event.failed",
      occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      subject: { kind: "event", id },
      snapshot: { status: "failed", error: event.error },
    },
  ]);
});
