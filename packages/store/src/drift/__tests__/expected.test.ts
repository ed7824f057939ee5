import { defaultIndexName, defaultPrimaryKeyName } from "../expected";
import { normaliseType } from "../shape";

describe("Prisma's default constraint names", () => {
  const long = "a".repeat(70);
  it.each([
    {
      table: "recipients",
      columns: ["external_id"],
      suffix: "_key" as const,
      name: "recipients_external_id_key",
    },
    {
      table: "messages",
      columns: ["recipient_id", "created_at"],
      suffix: "_idx" as const,
      name: "messages_recipient_id_created_at_idx",
    },
    { table: "t", columns: [long], suffix: "_idx" as const, name: `t_${"a".repeat(57)}_idx` },
    { table: "t", columns: ["a".repeat(57)], suffix: "_key" as const, name: `t_${"a".repeat(57)}_key` },
  ])("$name", ({ table, columns, suffix, name }) => {
    expect(defaultIndexName(table, columns, suffix)).toBe(name);
    expect(defaultIndexName(table, columns, suffix).length).toBeLessThanOrEqual(63);
  });

  it.each([
    { table: "recipients", name: "recipients_pkey" },
    { table: long, name: `${"a".repeat(58)}_pkey` },
  ])("primary key of $table", ({ table, name }) => {
    expect(defaultPrimaryKeyName(table)).toBe(name);
  });
});

describe("normaliseType", () => {
  it.each([
    ['"MessageStatus"', "MessageStatus"],
    ['"MessageStatus"[]', "MessageStatus[]"],
    ["timestamp with time zone", "timestamp(6) with time zone"],
    ["timestamp(3) with time zone", "timestamp(3) with time zone"],
    ["time without time zone", "time(6) without time zone"],
    ["character varying(255)", "character varying(255)"],
  ])("%s -> %s", (input, output) => {
    expect(normaliseType(input)).toBe(output);
  });
});
