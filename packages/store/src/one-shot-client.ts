import { Client } from "pg";

/**
 * Runs `fn` on a connection of its own (migrations, readiness's migration check, drift, creating or
 * dropping a database), closed afterwards. A connection the server ends while it is open (restart,
 * failover, pooler drop) fails the statement that meets it; its `error` event is heard here, never
 * left to crash the process (docs/operations.md "Recovery guarantees").
 */
export async function withClient<R>(
  connectionString: string,
  fn: (client: Client) => Promise<R>,
): Promise<R> {
  const client = new Client({ connectionString });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
