import path from "node:path";
import { checkDrift } from "../drift";
import { migrate } from "../migrations";
import { dropDatabase, query, scratchDatabaseUrl } from "./scratch";

// The project's own schema and migrations must describe the same database.
const ROOT = path.resolve(__dirname, "../../../..");
const schemaPath = path.join(ROOT, "prisma", "schema.prisma");
const migrationsDir = path.join(ROOT, "prisma", "migrations");

describe("prisma/migrations against prisma/schema.prisma", () => {
  const databaseUrl = scratchDatabaseUrl("real_drift");
  afterAll(() => dropDatabase(databaseUrl));

  it("migrate creates exactly what the schema describes, and a rerun applies nothing", async () => {
    const first = await migrate({ databaseUrl, migrationsDir, createDatabase: true });
    expect(first.applied.length).toBeGreaterThan(0);
    expect(first.applied[0]).toMatch(/^\d{14}_init$/);

    expect(await checkDrift({ databaseUrl, schemaPath })).toEqual({ ok: true, differences: [] });
    expect(await migrate({ databaseUrl, migrationsDir })).toEqual({
      applied: [],
      alreadyApplied: first.applied.length,
    });
  });

  it("notices a column added behind the schema's back", async () => {
    const [table] = await query<{ name: string }>(
      databaseUrl,
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1 LIMIT 1",
    );
    await query(databaseUrl, `ALTER TABLE "${table!.name}" ADD COLUMN drift_probe INT`);
    expect(await checkDrift({ databaseUrl, schemaPath })).toEqual({
      ok: false,
      differences: [`${table!.name}: extra column "drift_probe"`],
    });
  });

  it("notices a partial index rebuilt as a full one, and the reverse", async () => {
    await query(
      databaseUrl,
      `DROP INDEX messages_event_id_idx;
       CREATE INDEX messages_event_id_idx ON messages (event_id);
       DROP INDEX messages_created_at_idx;
       CREATE INDEX messages_created_at_idx ON messages (created_at) WHERE (status = 'sent');`,
    );
    expect(await checkDrift({ databaseUrl, schemaPath })).toEqual({
      ok: false,
      differences: expect.arrayContaining([
        'messages: index "messages_event_id_idx" (event_id) in the database, schema expects index "messages_event_id_idx" (event_id) where event_id IS NOT NULL',
        `messages: index "messages_created_at_idx" (created_at) where status = 'sent'::"MessageStatus" in the database, schema expects index "messages_created_at_idx" (created_at)`,
      ]),
    });
  });
});
