/**
 * The item producer of `npm run bench:inbox` (bench/inbox.ts), a process of its own, as delivery
 * workers are: it delivers existing messages into their people's inboxes through the same use case
 * the `inbox` provider calls (items + outbox entries of the deliveries in flight in one transaction,
 * then a kick of the relay), at a steady rate, CONCURRENCY at once as a delivery worker runs them. Prints one JSON line when done: {delivered, seconds}.
 *
 * Env: DATABASE_URL, REDIS_URL, PREFIX, RATE (items/s), SECONDS, CONCURRENCY.
 */
import { inboxStore } from "@svc/engine";
import { createRedisClient } from "@svc/queue";
import { createPrisma } from "@svc/store";

async function main() {
  const rate = Number(process.env.RATE);
  const seconds = Number(process.env.SECONDS);
  const concurrency = Number(process.env.CONCURRENCY ?? 32);
  const prisma = createPrisma({ databaseUrl: process.env.DATABASE_URL!, poolMax: concurrency + 2 });
  const redis = createRedisClient({ mode: "single", url: process.env.REDIS_URL! });
  const store = inboxStore({ prisma, queues: { redis, prefix: process.env.PREFIX! }, now: () => new Date() });
  const ids = (
    await prisma.message.findMany({ select: { id: true }, orderBy: { id: "asc" }, take: rate * seconds })
  ).map((m) => m.id);
  const started = Date.now();
  let next = 0;
  let inFlight = 0;
  let delivered = 0;
  // Paced in 10 ms ticks: each tick releases the items due by then, at most CONCURRENCY at once.
  await new Promise<void>((resolve, reject) => {
    const tick = setInterval(() => {
      const due = Math.min(ids.length, Math.floor(((Date.now() - started) / 1000) * rate));
      while (next < due && inFlight < concurrency) {
        const id = ids[next++]!;
        inFlight++;
        store
          .deliver({ messageId: id, channel: "in_app" } as Parameters<typeof store.deliver>[0])
          .then((result) => {
            inFlight--;
            if (!result.ok) return reject(new Error(`not delivered: ${JSON.stringify(result)}`));
            delivered++;
            if (delivered === ids.length) {
              clearInterval(tick);
              resolve();
            }
          }, reject);
      }
    }, 10);
  });
  console.log(JSON.stringify({ delivered, seconds: (Date.now() - started) / 1000 }));
  redis.disconnect();
  await prisma.$disconnect();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
