import { randomBytes } from "node:crypto";
import path from "node:path";
import { Pool } from "pg";
import { dropDatabase, ensureDatabase, migrate, withDatabaseName } from "@svc/store";

const SERVER = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const MIGRATIONS_DIR = path.resolve(__dirname, "../../prisma/migrations");

/**
 * The scratch databases of a benchmark that runs svc beside a bare chain of queues: svc's
 * (migrated) and the chain's (empty), named with a fresh `tag`, each with a pool of `poolSize`.
 * `drop()` ends the pools and drops both databases.
 */
export async function benchDatabases(bench: string, poolSize: number) {
  const tag = randomBytes(3).toString("hex");
  const svcUrl = withDatabaseName(SERVER, `svc_bench_${bench}_${tag}`);
  const chainUrl = withDatabaseName(SERVER, `svc_bench_chain_${tag}`);
  await migrate({ databaseUrl: svcUrl, migrationsDir: MIGRATIONS_DIR, createDatabase: true });
  await ensureDatabase(chainUrl);
  const svcPool = new Pool({ connectionString: svcUrl, max: poolSize });
  const chainPool = new Pool({ connectionString: chainUrl, max: poolSize });
  return {
    tag,
    svcUrl,
    chainUrl,
    svcPool,
    chainPool,
    async drop() {
      await Promise.all([svcPool.end(), chainPool.end()]);
      await dropDatabase(svcUrl);
      await dropDatabase(chainUrl);
    },
  };
}
