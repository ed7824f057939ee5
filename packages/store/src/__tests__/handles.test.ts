import type { PrismaClient } from "../generated/prisma/client";
import {
  prismaOf,
  rootOf,
  transactionOf,
  type Database,
  type RootDatabase,
  type Transaction,
} from "../transaction";

// The handles code outside the store holds (transaction.ts, docs/architecture.md "The store
// boundary"). What they allow is checked by the type checker (`npm run typecheck` compiles this
// file): each `@ts-expect-error` fails the check the day its line compiles.

/* eslint-disable @typescript-eslint/no-unused-vars */
function handlesHaveNoMembers(db: Database, root: RootDatabase, tx: Transaction) {
  // @ts-expect-error a statement cannot be made through a handle
  void db.message;
  // @ts-expect-error nor raw SQL
  void root.$queryRaw;
  // @ts-expect-error nor through a transaction's
  void tx.$executeRaw;
}

function handlesNarrowOneWay(db: Database, root: RootDatabase, tx: Transaction, client: PrismaClient) {
  const fromRoot: Database = root;
  const fromTx: Database = tx;
  // @ts-expect-error a Database may be the root or a transaction: not enough for a lock's caller
  const notTx: Transaction = db;
  // @ts-expect-error nor for work that opens transactions of its own
  const notRoot: RootDatabase = db;
  // @ts-expect-error a transaction is not the root client
  const txNotRoot: RootDatabase = tx;
  // The client the apps create (and tests hold) is any of them.
  const handles: [Database, RootDatabase, Transaction] = [client, client, client];
  // @ts-expect-error a string is no handle
  const notAHandle: Database = "postgres://";
}
/* eslint-enable @typescript-eslint/no-unused-vars */

test("the store's accessors hand back the client behind a handle, unchanged", () => {
  const client = { $connect: () => undefined } as unknown as PrismaClient;
  expect(prismaOf(client)).toBe(client);
  expect(rootOf(client)).toBe(client);
  expect(transactionOf(client)).toBe(client);
  expect([handlesHaveNoMembers, handlesNarrowOneWay]).toHaveLength(2);
});
