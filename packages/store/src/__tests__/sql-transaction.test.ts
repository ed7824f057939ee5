import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { createPrisma, pgPoolOf } from "../client";
import { classifyDatabaseError } from "../database-errors";
import { lockRecipient, lockRecipients } from "../locks";
import { findFatigueState, saveFatigueState } from "../repositories/recipients/fatigue-states";
import { findRecipientWithPolicyRows } from "../repositories/recipients/policy-rows";
import { poolSqlOf, sqlTransaction } from "../sql-transaction";
import { $transaction, PgTransactionMisuse, sqlOf } from "../transaction";

// The pg transaction of direct sends' batches (sql-transaction.ts), against a real Postgres: it
// commits, rolls back, holds advisory locks until it ends, is retried after a deadlock, stops a
// statement at its timeout, refuses Prisma calls before they write anything, and sends its
// statements named in session mode and unnamed behind a transaction-mode pooler.

let db: TestDatabase;
const OPTIONS = { statementTimeoutMs: 5_000 };

beforeAll(async () => {
  db = await createTestDatabase("store_sql_transaction", { poolMax: 6 });
  await db.prisma.$executeRawUnsafe("CREATE TABLE scratch (id int PRIMARY KEY, v int NOT NULL)");
  await db.prisma.recipient.create({ data: { id: "rcp_a", external_id: "a" } });
});
afterAll(() => db.drop());
beforeEach(() => db.prisma.$executeRawUnsafe("TRUNCATE scratch"));

const rows = async () =>
  (await db.prisma.$queryRawUnsafe<{ id: number; v: number }[]>("SELECT id, v FROM scratch ORDER BY id")).map(
    (r) => [r.id, r.v],
  );

class Boom extends Error {}

test("commits what its statements wrote, and returns what the callback returns", async () => {
  const result = await sqlTransaction(
    db.prisma,
    async (tx) => {
      await sqlOf(tx).execute("INSERT INTO scratch VALUES ($1, $2), ($3, $4)", [1, 10, 2, 20]);
      return sqlOf(tx).query<{ n: number }>("SELECT count(*)::int AS n FROM scratch", []);
    },
    OPTIONS,
  );
  expect(result).toEqual([{ n: 2 }]);
  expect(await rows()).toEqual([
    [1, 10],
    [2, 20],
  ]);
});

test("rolls back everything when the callback throws, and the connection serves the next one", async () => {
  await expect(
    sqlTransaction(
      db.prisma,
      async (tx) => {
        await sqlOf(tx).execute("INSERT INTO scratch VALUES (1, 1)", []);
        throw new Boom();
      },
      OPTIONS,
    ),
  ).rejects.toBeInstanceOf(Boom);
  expect(await rows()).toEqual([]);
  await sqlTransaction(
    db.prisma,
    (tx) => sqlOf(tx).execute("INSERT INTO scratch VALUES (3, 3)", []),
    OPTIONS,
  );
  expect(await rows()).toEqual([[3, 3]]);
});

test("refuses a Prisma call at once (PgTransactionMisuse): nothing of the transaction is written", async () => {
  await expect(
    sqlTransaction(
      db.prisma,
      async (tx) => {
        await sqlOf(tx).execute("INSERT INTO scratch VALUES (1, 1)", []);
        await findRecipientWithPolicyRows(tx, { id: "rcp_a" }); // a Prisma query
      },
      OPTIONS,
    ),
  ).rejects.toBeInstanceOf(PgTransactionMisuse);
  expect(await rows()).toEqual([]);
});

test("holds a person's advisory lock until it commits", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const order: string[] = [];
  const first = sqlTransaction(
    db.prisma,
    async (tx) => {
      await lockRecipients(tx, ["rcp_a"]);
      order.push("first locked");
      await held;
      order.push("first commits");
    },
    OPTIONS,
  );
  await new Promise((r) => setTimeout(r, 100));
  const second = $transaction(db.prisma, async (tx) => {
    await lockRecipient(tx, "rcp_a");
    order.push("second locked");
  });
  await new Promise((r) => setTimeout(r, 200));
  expect(order).toEqual(["first locked"]);
  release();
  await Promise.all([first, second]);
  expect(order).toEqual(["first locked", "first commits", "second locked"]);
});

test("is run again after a deadlock, as $transaction is", async () => {
  await db.prisma.$executeRawUnsafe("INSERT INTO scratch VALUES (1, 0), (2, 0)");
  let attempts = 0;
  const crossing = (a: number, b: number) =>
    sqlTransaction(
      db.prisma,
      async (tx) => {
        attempts++;
        await sqlOf(tx).execute("UPDATE scratch SET v = v + 1 WHERE id = $1", [a]);
        await new Promise((r) => setTimeout(r, 150));
        await sqlOf(tx).execute("UPDATE scratch SET v = v + 1 WHERE id = $1", [b]);
      },
      OPTIONS,
    );
  await Promise.all([crossing(1, 2), crossing(2, 1)]);
  // Postgres broke the deadlock by failing one; it ran again: both updates of both counted once.
  expect(attempts).toBe(3);
  expect(await rows()).toEqual([
    [1, 2],
    [2, 2],
  ]);
});

test("stops a statement at its timeout (a lock never given up) and rolls back", async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const holder = $transaction(
    db.prisma,
    async (tx) => {
      await lockRecipient(tx, "rcp_a");
      await held;
    },
    { timeout: 10_000 },
  );
  await new Promise((r) => setTimeout(r, 100));
  const started = Date.now();
  const waiting = sqlTransaction(
    db.prisma,
    async (tx) => {
      await sqlOf(tx).execute("INSERT INTO scratch VALUES (1, 1)", []);
      await lockRecipients(tx, ["rcp_a"]);
    },
    { statementTimeoutMs: 300 },
  );
  await expect(waiting).rejects.toMatchObject({ code: "57014" }); // query_canceled
  expect(Date.now() - started).toBeLessThan(3_000);
  release();
  await holder;
  expect(await rows()).toEqual([]);
});

test.each([
  ["between two statements", false],
  ["before the COMMIT", true],
] as const)(
  "a connection killed %s: rejected as unavailable, nothing written, the connection dropped, the next one works",
  async (_when, atCommit) => {
    const prisma = createPrisma({ databaseUrl: db.databaseUrl, poolMax: 2 });
    const pool = pgPoolOf(prisma);
    try {
      let killed = 0;
      const attempt = sqlTransaction(
        prisma,
        async (tx) => {
          await sqlOf(tx).execute("INSERT INTO scratch VALUES (1, 1)", []);
          const [own] = await sqlOf(tx).query<{ pid: number }>("SELECT pg_backend_pid() AS pid", []);
          killed = own!.pid;
          // Another session ends this one, as a restart, failover or pooler drop would.
          await db.prisma.$queryRawUnsafe("SELECT pg_terminate_backend($1)", killed);
          if (!atCommit) await sqlOf(tx).execute("INSERT INTO scratch VALUES (2, 2)", []);
        },
        OPTIONS,
      );
      const error = await attempt.then(
        () => null,
        (e: unknown) => e,
      );
      expect(classifyDatabaseError(error)?.kind).toBe("unavailable");
      expect(await rows()).toEqual([]);
      // The dead connection left the pool; the next transaction gets a live one.
      const [next] = await sqlTransaction(
        prisma,
        async (tx) => {
          await sqlOf(tx).execute("INSERT INTO scratch VALUES (3, 3)", []);
          return sqlOf(tx).query<{ pid: number }>("SELECT pg_backend_pid() AS pid", []);
        },
        OPTIONS,
      );
      expect(next!.pid).not.toBe(killed);
      expect(await rows()).toEqual([[3, 3]]);
      expect(pool.totalCount).toBeLessThanOrEqual(2);
    } finally {
      await prisma.$disconnect();
    }
  },
);

test("writes what the store's functions write under it as they write under Prisma", async () => {
  const state = {
    sentSinceEngagement: 3,
    pausedUntil: new Date("2024-01-16T00:00:00.000Z"),
    probeMessageId: null,
    probeSentAt: null,
    probeEngaged: false,
  };
  const now = new Date("2024-01-15T12:00:00.123Z");
  await sqlTransaction(db.prisma, (tx) => saveFatigueState(tx, "rcp_a", "news", state, now), OPTIONS);
  expect(await findFatigueState(db.prisma, "rcp_a", "news")).toEqual({
    recipient_id: "rcp_a",
    category: "news",
    sent_since_engagement: 3,
    paused_until: state.pausedUntil,
    probe_message_id: null,
    probe_sent_at: null,
    updated_at: now,
  });
});

test.each([
  ["session", 1],
  ["transaction", 0],
] as const)(
  "in %s pool mode, each statement is named (prepared once per connection) %i times",
  async (poolMode, named) => {
    const prisma = createPrisma({ databaseUrl: db.databaseUrl, poolMax: 1, poolMode });
    try {
      const prepared = await sqlTransaction(
        prisma,
        async (tx) => {
          await sqlOf(tx).query("SELECT $1::int + 1 AS n", [1]);
          return sqlOf(tx).query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'svc_%'",
            [],
          );
        },
        OPTIONS,
      );
      expect(prepared).toEqual([{ n: named * 2 }]);
      await expect(poolSqlOf(prisma).query("SELECT $1::int AS n", [7])).resolves.toEqual([{ n: 7 }]);
    } finally {
      await prisma.$disconnect();
    }
  },
);
