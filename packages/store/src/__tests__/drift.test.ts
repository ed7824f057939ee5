import path from "node:path";
import { checkDrift } from "../drift";
import { migrate } from "../migrations";
import { dropDatabase, migrationsFixture, query, scratchDatabaseUrl } from "./scratch";
import { readFileSync } from "node:fs";

// A small schema touching every mapping drift knows, and the SQL `prisma migrate diff --from-empty` made for it.
const FIXTURE = path.join(__dirname, "fixtures", "drift");
const schemaPath = path.join(FIXTURE, "schema.prisma");
const migrations = migrationsFixture({
  "20250101000000_init": readFileSync(path.join(FIXTURE, "migration.sql"), "utf8"),
});
const urls: string[] = [];

async function migratedDatabase(): Promise<string> {
  const databaseUrl = scratchDatabaseUrl("drift");
  urls.push(databaseUrl);
  await migrate({ databaseUrl, migrationsDir: migrations.dir, createDatabase: true });
  return databaseUrl;
}

afterAll(async () => {
  for (const url of urls) await dropDatabase(url);
  migrations.remove();
});

describe("checkDrift", () => {
  it("finds no drift in a freshly migrated database", async () => {
    expect(await checkDrift({ databaseUrl: await migratedDatabase(), schemaPath })).toEqual({
      ok: true,
      differences: [],
    });
  });

  it("reports an added column, a dropped index and a changed type", async () => {
    const databaseUrl = await migratedDatabase();
    await query(
      databaseUrl,
      `ALTER TABLE recipients ADD COLUMN nickname TEXT;
       DROP INDEX recipients_created_at_idx;
       ALTER TABLE recipients ALTER COLUMN age TYPE BIGINT;`,
    );
    expect(await checkDrift({ databaseUrl, schemaPath })).toEqual({
      ok: false,
      differences: [
        "recipients.age: type is bigint, schema expects integer",
        'recipients: extra column "nickname"',
        'recipients: missing index "recipients_created_at_idx" (created_at)',
      ],
    });
  });

  it.each([
    { change: `ALTER TABLE recipients DROP COLUMN blob`, differences: ['recipients: missing column "blob"'] },
    {
      change: `ALTER TABLE recipients ALTER COLUMN email TYPE TEXT`,
      differences: ["recipients.email: type is text, schema expects character varying(255)"],
    },
    {
      change: `ALTER TABLE recipients ALTER COLUMN created_at TYPE TIMESTAMP(3)`,
      differences: [
        "recipients.created_at: type is timestamp(3) without time zone, schema expects timestamp(3) with time zone",
      ],
    },
    {
      change: `ALTER TABLE recipients ALTER COLUMN amount TYPE DECIMAL(12,2)`,
      differences: ["recipients.amount: type is numeric(12,2), schema expects numeric(10,2)"],
    },
    {
      change: `ALTER TABLE recipients ALTER COLUMN data TYPE JSON`,
      differences: ["recipients.data: type is json, schema expects jsonb"],
    },
    {
      change: `ALTER TABLE recipients ALTER COLUMN tags TYPE VARCHAR(10)[]`,
      differences: ["recipients.tags: type is character varying(10)[], schema expects text[]"],
    },
    {
      change: `ALTER TABLE recipients ALTER COLUMN big DROP NOT NULL`,
      differences: ["recipients.big: nullable in the database, schema expects NOT NULL"],
    },
    {
      change: `ALTER TABLE recipients ALTER COLUMN blob SET NOT NULL`,
      differences: ["recipients.blob: NOT NULL in the database, schema expects nullable"],
    },
    { change: `CREATE TABLE audit (id INT)`, differences: ['extra table "audit"'] },
    { change: `DROP TABLE "Message"`, differences: ['missing table "Message" (model Message)'] },
    {
      change: `ALTER TABLE "Message" DROP CONSTRAINT "Message_pkey"; ALTER TABLE "Message" ADD CONSTRAINT "Message_pkey" PRIMARY KEY (a)`,
      differences: ['Message: primary key is "Message_pkey" (a), schema expects "Message_pkey" (a, b)'],
    },
    {
      change: `ALTER TABLE "Message" DROP CONSTRAINT "Message_pkey"`,
      differences: ['Message: missing primary key "Message_pkey" (a, b)'],
    },
    {
      change: `DROP INDEX recipients_external_id_key`,
      differences: ['recipients: missing unique index "recipients_external_id_key" (external_id)'],
    },
    {
      change: `ALTER INDEX msg_rcp RENAME TO message_recipient`,
      differences: ['Message: index "msg_rcp" (recipient_id) is named "message_recipient" in the database'],
    },
    {
      change: `DROP INDEX recipients_email_age_key; CREATE INDEX recipients_email_age_key ON recipients (email, age)`,
      differences: [
        'recipients: index "recipients_email_age_key" (email, age) in the database, schema expects unique index "recipients_email_age_key" (email, age)',
      ],
    },
    {
      change: `CREATE INDEX score_idx ON recipients (score, big)`,
      differences: ['recipients: extra index "score_idx" (score, big)'],
    },
    {
      change: `CREATE UNIQUE INDEX lower_email ON recipients (lower(email))`,
      differences: ['recipients: extra unique index "lower_email" (lower(email::text))'],
    },
    {
      change: `ALTER TABLE "Message" DROP CONSTRAINT "Message_recipient_id_fkey"`,
      differences: ["Message: missing foreign key (recipient_id) -> recipients(id)"],
    },
    {
      change: `ALTER TABLE "Message" ADD CONSTRAINT self_fk FOREIGN KEY (recipient_id) REFERENCES recipients(id)`,
      differences: ['Message: extra foreign key "self_fk" (recipient_id) -> recipients(id)'],
    },
    {
      change: `ALTER TYPE msg_status ADD VALUE 'bounced'`,
      differences: ['enum "msg_status": values are (queued, sent, bounced), schema expects (queued, sent)'],
    },
    { change: `CREATE TYPE mood AS ENUM ('happy')`, differences: ['extra enum "mood"'] },
    {
      change: `ALTER TABLE recipients ALTER COLUMN status TYPE TEXT; DROP TYPE msg_status`,
      differences: [
        "recipients.status: type is text, schema expects msg_status",
        'missing enum "msg_status"',
      ],
    },
  ])("reports: $change", async ({ change, differences }) => {
    const databaseUrl = await migratedDatabase();
    await query(databaseUrl, change);
    expect(await checkDrift({ databaseUrl, schemaPath })).toEqual({ ok: false, differences });
  });
});
