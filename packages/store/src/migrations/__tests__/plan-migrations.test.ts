import { planMigrations } from "../plan-migrations";
import type { MigrationRow } from "../migrations-table";

const file = (name: string, checksum = `sum-${name}`) => ({ name, sql: "", checksum });
const row = (name: string, over: Partial<MigrationRow> = {}): MigrationRow => ({
  id: `id-${name}`,
  checksum: `sum-${name}`,
  migration_name: name,
  started_at: new Date("2025-01-01T00:00:00Z"),
  finished_at: new Date("2025-01-01T00:00:01Z"),
  rolled_back_at: null,
  ...over,
});

describe("planMigrations", () => {
  it.each([
    { case: "empty database", rows: [], pending: ["a", "b"], alreadyApplied: 0, unknownApplied: [] },
    { case: "first applied", rows: [row("a")], pending: ["b"], alreadyApplied: 1, unknownApplied: [] },
    { case: "all applied", rows: [row("a"), row("b")], pending: [], alreadyApplied: 2, unknownApplied: [] },
    {
      case: "rolled back counts as pending, like Prisma",
      rows: [row("a"), row("b", { finished_at: null, rolled_back_at: new Date() })],
      pending: ["b"],
      alreadyApplied: 1,
      unknownApplied: [],
    },
    {
      case: "newer migration applied by another build",
      rows: [row("a"), row("b"), row("c")],
      pending: [],
      alreadyApplied: 2,
      unknownApplied: ["c"],
    },
  ])("$case", ({ rows, pending, alreadyApplied, unknownApplied }) => {
    const plan = planMigrations([file("a"), file("b")], rows);
    expect({
      pending: plan.pending.map((f) => f.name),
      alreadyApplied: plan.alreadyApplied,
      unknownApplied: plan.unknownApplied,
    }).toEqual({
      pending,
      alreadyApplied,
      unknownApplied,
    });
  });

  it("ignores a changed checksum of a rolled back migration", () => {
    const plan = planMigrations([file("a", "new")], [row("a", { rolled_back_at: new Date() })]);
    expect(plan.pending.map((f) => f.name)).toEqual(["a"]);
  });

  it.each([
    { case: "changed file", rows: [row("a", { checksum: "old" })], code: "checksum_mismatch" },
    { case: "failed migration", rows: [row("a"), row("b", { finished_at: null })], code: "failed_migration" },
  ])("refuses: $case", ({ rows, code }) => {
    expect(() => planMigrations([file("a"), file("b")], rows)).toThrow(expect.objectContaining({ code }));
  });
});
