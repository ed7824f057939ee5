import { parseConfig } from "@svc/config";
import { newId, type Principal } from "@svc/core";
import { createLogCapture, createLogger } from "@svc/log";
import { createQueues, type Queues } from "@svc/queue";
import { $transaction, insertWebhookEndpoint } from "@svc/store";
import { createTestDatabase, testRedisPrefix, type TestDatabase, type TestRedisPrefix } from "@svc/testkit";
import { makePerson, queuedMessage } from "../../delivery/__tests__/delivery-fixtures";
import { eraseRecipient } from "../../erasure/erase-recipient";
import { relayOutboxOnce, type OutboxConsumer } from "../../outbox/relay-outbox";
import { emitWebhookEvents, messageEmission } from "../../outbox/emit";
import { webhookFanOut } from "../fan-out-webhooks";

// docs/webhooks.md "Personal data": an erasure racing the fan-out of an event about the same person
// leaves no delivery about them, whichever of the two commits first.

let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
const principal: Principal = { keyId: "key_test", keyName: "backend", scopes: ["admin"], agentKey: null };
const logger = createLogger({ service: "erasure-race", level: "error", stream: createLogCapture().stream });
const now = () => new Date();

beforeAll(async () => {
  db = await createTestDatabase("webhook_erasure_race");
  redis = testRedisPrefix("webhook_erasure_race");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  await insertWebhookEndpoint(db.prisma, {
    id: newId("webhook"),
    url: "https://hooks.example.com/svc",
    events: ["*"],
    description: null,
    enabled: true,
    secretSalt: "salt",
    now: now(),
  });
});
afterAll(async () => {
  await queues.close();
  await redis.cleanup();
  await db.drop();
});

/** A person with a sent message whose `message.sent` event waits in the outbox. */
async function personWithEvent() {
  const person = await makePerson(db.prisma, [{ channel: "sms", value: "+15550008101" }]);
  const message = await queuedMessage(db.prisma, person, { channels: ["sms"] });
  await $transaction(db.prisma, (tx) =>
    emitWebhookEvents(tx, [messageEmission("message.sent", { ...message, status: "sent" }, now())]),
  );
  return { person, message };
}

function relayDeps(consumers: OutboxConsumer[]) {
  return {
    prisma: db.prisma,
    notices: { channel: (name: string) => name, publish: async () => undefined },
    consumers,
  };
}

const deliveriesAbout = (recipientId: string) =>
  db.prisma.webhookDelivery.findMany({ where: { recipient_id: recipientId } });

const erase = (externalId: string) =>
  eraseRecipient(
    { prisma: db.prisma, config: parseConfig({}, {}), queues, logger, now },
    principal,
    externalId,
  );

it("a fan-out that wrote first: the erasure waits for its commit, then deletes what it wrote", async () => {
  const { person } = await personWithEvent();
  let reached!: () => void;
  const written = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // The fan-out writes its rows, then its transaction stays open until released.
  const pause: OutboxConsumer = {
    name: "pause",
    async consume() {
      reached();
      await held;
    },
  };
  const relay = relayOutboxOnce(relayDeps([webhookFanOutFor(), pause]), 200);
  await written;
  const erasure = erase(person.external_id);
  // The erasure cannot finish while the fan-out holds the person's row.
  const early = await Promise.race([erasure.then(() => "done"), sleep(500).then(() => "waiting")]);
  expect(early).toBe("waiting");
  release();
  expect(await relay).toBeGreaterThan(0);
  await erasure;
  expect(await deliveriesAbout(person.id)).toEqual([]);
});

it("an erasure that deleted first: the fan-out waits for its commit and writes nothing about the person", async () => {
  const { person, message } = await personWithEvent();
  // An erasure's transaction, open: the person's row and message deleted, not yet committed.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const deleted = new Promise<void>((resolve) => (reached = resolve));
  const erasure = db.prisma.$transaction(
    async (tx) => {
      await tx.message.delete({ where: { id: message.id } });
      await tx.recipient.delete({ where: { id: person.id } });
      reached();
      await held;
    },
    { timeout: 30_000 },
  );
  await deleted;
  // The fan-out read the message before the erasure committed; its write waits on the person's row.
  const relay = relayOutboxOnce(relayDeps([webhookFanOutFor()]), 200);
  const early = await Promise.race([relay.then(() => "done"), sleep(500).then(() => "waiting")]);
  expect(early).toBe("waiting");
  release();
  await erasure;
  expect(await relay).toBeGreaterThan(0);
  expect(await deliveriesAbout(person.id)).toEqual([]);
});

function webhookFanOutFor(): OutboxConsumer {
  return webhookFanOut({
    prisma: db.prisma,
    config: parseConfig({}, {}),
    queues,
    logger,
    now,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
