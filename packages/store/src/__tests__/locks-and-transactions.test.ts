import { setTimeout as sleep } from "node:timers/promises";
import { createPrisma } from "../client";
import { lockRecipient, lockRecipients } from "../locks";
import { migrate } from "../migrations";
import { $transaction, isRetryableTransactionError, transactionOf, type Transaction } from "../transaction";
import type { PrismaClient } from "../generated/prisma/client";
import { dropDatabase, REAL_MIGRATIONS_DIR, scratchDatabaseUrl } from "./scratch";

const databaseUrl = scratchDatabaseUrl("locks");
let prisma: PrismaClient;

beforeAll(async () => {
  await migrate({ databaseUrl, migrationsDir: REAL_MIGRATIONS_DIR, createDatabase: true });
  prisma = createPrisma({ databaseUrl, poolMax: 5 });
  await prisma.$executeRaw`CREATE TABLE scratch_counter (id INT PRIMARY KEY, value INT NOT NULL)`;
  await prisma.$executeRaw`INSERT INTO scratch_counter VALUES (1, 0)`;
});

afterAll(async () => {
  await prisma.$disconnect();
  await dropDatabase(databaseUrl);
});

const resetCounter = () => prisma.$executeRaw`UPDATE scratch_counter SET value = 0 WHERE id = 1`;

/** Resolves once `events` contains `name`. */
async function reached(events: string[], name: string) {
  while (!events.includes(name)) await sleep(5);
}

describe("lockRecipient", () => {
  it.each([
    { second: "alice", order: ["1:locked", "2:start", "1:done", "2:locked"] },
    { second: "bob", order: ["1:locked", "2:start", "2:locked", "1:done"] },
  ])("a second transaction for $second waits only for the same recipient", async ({ second, order }) => {
    const events: string[] = [];
    const first = $transaction(prisma, async (tx) => {
      await lockRecipient(tx, "alice");
      events.push("1:locked");
      await sleep(300);
      events.push("1:done");
    });
    await reached(events, "1:locked");
    const secondTx = $transaction(prisma, async (tx) => {
      events.push("2:start");
      await lockRecipient(tx, second);
      events.push("2:locked");
    });
    await Promise.all([first, secondTx]);
    expect(events).toEqual(order);
  });

  it("keeps a read-modify-write per recipient exact under concurrency", async () => {
    await resetCounter();
    await Promise.all(
      Array.from({ length: 10 }, () =>
        $transaction(prisma, async (tx) => {
          await lockRecipient(tx, "carol");
          const [row] = await transactionOf(tx).$queryRaw<
            { value: number }[]
          >`SELECT value FROM scratch_counter WHERE id = 1`;
          await sleep(10);
          await transactionOf(tx)
            .$executeRaw`UPDATE scratch_counter SET value = ${row!.value + 1} WHERE id = 1`;
        }),
      ),
    );
    expect(await prisma.$queryRaw`SELECT value FROM scratch_counter WHERE id = 1`).toEqual([{ value: 10 }]);
  });

  it("lockRecipients holds every person's lock: a lone lock of one of them waits, of another not", async () => {
    const events: string[] = [];
    const batch = $transaction(prisma, async (tx) => {
      await lockRecipients(tx, ["dave", "erin", "dave"]);
      events.push("batch:locked");
      await sleep(300);
      events.push("batch:done");
    });
    await reached(events, "batch:locked");
    const lone = (who: string) =>
      $transaction(prisma, async (tx) => {
        await lockRecipient(tx, who);
        events.push(`${who}:locked`);
      });
    await Promise.all([batch, lone("erin"), lone("frank")]);
    expect(events.indexOf("frank:locked")).toBeLessThan(events.indexOf("batch:done"));
    expect(events.indexOf("erin:locked")).toBeGreaterThan(events.indexOf("batch:done"));
  });

  it("two batches locking the same people in different orders both commit (key order, no deadlock)", async () => {
    const people = Array.from({ length: 20 }, (_, i) => `p${i}`);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        $transaction(prisma, async (tx) => {
          await lockRecipients(tx, i % 2 ? people : [...people].reverse());
          await sleep(20);
        }),
      ),
    );
  });

  it("refuses a client that is not inside a transaction", async () => {
    await expect(lockRecipient(prisma as unknown as Transaction, "alice")).rejects.toThrow(
      "advisory transaction locks need a transaction client",
    );
  });
});

describe("$transaction", () => {
  const forceSerializationFailure = (tx: Transaction) =>
    transactionOf(tx).$executeRawUnsafe(
      `DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40001', MESSAGE = 'forced'; END $$`,
    );

  it("retries a serialization failure and commits the attempt that succeeds", async () => {
    await resetCounter();
    let attempts = 0;
    const retries: number[] = [];
    const result = await $transaction(
      prisma,
      async (tx) => {
        attempts++;
        await transactionOf(tx).$executeRaw`UPDATE scratch_counter SET value = value + 100 WHERE id = 1`;
        if (attempts < 3) await forceSerializationFailure(tx);
        return attempts;
      },
      { onRetry: (attempt) => retries.push(attempt) },
    );
    expect(result).toBe(3);
    expect(retries).toEqual([1, 2]);
    // Only the third attempt's +100 survived.
    expect(await prisma.$queryRaw`SELECT value FROM scratch_counter WHERE id = 1`).toEqual([{ value: 100 }]);
  });

  it("gives up after maxRetries and rethrows the database error", async () => {
    let attempts = 0;
    const error = await $transaction(
      prisma,
      async (tx) => {
        attempts++;
        await forceSerializationFailure(tx);
      },
      { maxRetries: 2 },
    ).catch((e: unknown) => e);
    expect(attempts).toBe(3);
    expect(isRetryableTransactionError(error)).toBe(true);
  });

  it("does not retry other errors", async () => {
    let attempts = 0;
    await expect(
      $transaction(prisma, async (tx) => {
        attempts++;
        await transactionOf(tx).$executeRaw`SELECT 1 / 0`;
      }),
    ).rejects.toMatchObject({ meta: { driverAdapterError: { cause: { originalCode: "22012" } } } });
    expect(attempts).toBe(1);
  });

  it("resolves a real serializable write conflict by retrying", async () => {
    await resetCounter();
    const bothRead: string[] = [];
    let retries = 0;
    const increment = (name: string) =>
      $transaction(
        prisma,
        async (tx) => {
          const [row] = await transactionOf(tx).$queryRaw<
            { value: number }[]
          >`SELECT value FROM scratch_counter WHERE id = 1`;
          // Both first attempts read before either writes, so one of them must fail to serialize.
          bothRead.push(name);
          while (bothRead.length < 2) await sleep(5);
          await transactionOf(tx)
            .$executeRaw`UPDATE scratch_counter SET value = ${row!.value + 1} WHERE id = 1`;
        },
        { isolationLevel: "Serializable", onRetry: () => retries++ },
      );
    await Promise.all([increment("a"), increment("b")]);
    expect(retries).toBe(1);
    expect(await prisma.$queryRaw`SELECT value FROM scratch_counter WHERE id = 1`).toEqual([{ value: 2 }]);
  });

  it("joins an outer transaction instead of opening another", async () => {
    await resetCounter();
    await expect(
      $transaction(prisma, async (outer) => {
        await $transaction(outer, async (inner) => {
          expect(inner).toBe(outer);
          await transactionOf(inner).$executeRaw`UPDATE scratch_counter SET value = 7 WHERE id = 1`;
        });
        throw new Error("outer fails");
      }),
    ).rejects.toThrow("outer fails");
    // The inner write rolled back with the outer transaction.
    expect(await prisma.$queryRaw`SELECT value FROM scratch_counter WHERE id = 1`).toEqual([{ value: 0 }]);
  });
});
