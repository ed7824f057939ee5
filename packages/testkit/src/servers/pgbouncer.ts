import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { tmpdir } from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { Client } from "pg";
import { REPO_ROOT } from "../services";
import { freePort, ownProcess, until, type OwnProcess } from "./process-group";

/** The deployment's own PgBouncer settings (docker-compose.yml's `pgbouncer` profile). */
const PGBOUNCER_INI = path.join(REPO_ROOT, "deploy", "pgbouncer", "pgbouncer.ini");

/** `ini` with the values of `settings` replaced (keys of the [pgbouncer] section and `*` of [databases]). */
function withSettings(ini: string, settings: Record<string, string>): string {
  const left = new Map(Object.entries(settings));
  const lines = ini.split("\n").map((line) => {
    const match = /^\s*([\w*]+)\s*=/.exec(line);
    if (!match || !left.has(match[1]!)) return line;
    const value = left.get(match[1]!)!;
    left.delete(match[1]!);
    return `${match[1]} = ${value}`;
  });
  if (left.size > 0) throw new Error(`pgbouncer.ini has no ${[...left.keys()].join(", ")}`);
  return lines.join("\n");
}

// PgBouncer of the test's own (Debian's pgbouncer 1.18) in front of the shared Postgres, configured
// by the deployment's own file (deploy/pgbouncer/pgbouncer.ini) with only the addresses, files and
// authentication replaced (trust, as the test server has it). It refuses to run as root, so as root
// it runs as `postgres`.

export interface OwnPgBouncer {
  port: number;
  /** `postgresql://<user>@127.0.0.1:<port>/<database>`: the pooled URL of a database. */
  urlFor(databaseUrl: string): string;
  process: OwnProcess;
  /** SIGKILL, then start again on the same port: every client connection is dropped. */
  restart(options?: { downMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

export async function startPgBouncer(
  options: {
    serverUrl?: string;
    poolMode?: "transaction" | "session";
    poolSize?: number;
  } = {},
): Promise<OwnPgBouncer> {
  const server = new URL(options.serverUrl ?? "postgresql://postgres@127.0.0.1:5432/postgres");
  const user = decodeURIComponent(server.username || "postgres");
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "svc-pgbouncer-"));
  const ini = path.join(dir, "pgbouncer.ini");
  const users = path.join(dir, "users.txt");
  writeFileSync(users, `"${user}" ""\n`);
  writeFileSync(
    ini,
    withSettings(readFileSync(PGBOUNCER_INI, "utf8"), {
      "*": `host=${server.hostname} port=${server.port || 5432}`,
      listen_addr: "127.0.0.1",
      listen_port: String(port),
      auth_type: "trust",
      auth_file: users,
      ...(options.poolMode ? { pool_mode: options.poolMode } : {}),
      ...(options.poolSize ? { default_pool_size: String(options.poolSize) } : {}),
      logfile: path.join(dir, "pgbouncer.log"),
      pidfile: path.join(dir, "pgbouncer.pid"),
    }),
  );
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    for (const file of [dir, ini, users]) chownSync(file, uid, gid);
    chmodSync(dir, 0o755);
  }
  const process = ownProcess("pgbouncer", "pgbouncer", [...(asRoot ? ["-u", "postgres"] : []), ini]);
  const reachable = async () => {
    const client = new Client({ connectionString: `postgresql://${user}@127.0.0.1:${port}/postgres` });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("SELECT 1");
      return true;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const start = async () => {
    await process.start();
    await until("pgbouncer accepting", reachable);
  };
  try {
    await start();
  } catch (error) {
    await process.kill();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    process,
    urlFor(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = "127.0.0.1";
      url.port = String(port);
      return url.toString();
    },
    async restart({ downMs = 1_000 } = {}) {
      await process.kill();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await start();
    },
    async stop() {
      await process.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
