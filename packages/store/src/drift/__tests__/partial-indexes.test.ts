import path from "node:path";
import { loadSchema } from "../../drift";
import { partialIndexPredicates } from "../partial-indexes";
import { normalisePredicate } from "../shape";

describe("partialIndexPredicates", () => {
  it("reads each model's `where: raw(…)` by its fields, escapes undone", () => {
    const schema = `
model Message {
  id     String @id
  status String
  /// Not finished yet.
  @@index([status, send_at], where: raw("status = ANY (ARRAY['queued'::\\"MessageStatus\\"])"))
  @@index([event_id], where: raw("event_id IS NOT NULL"))
  @@index([created_at])
  @@map("messages")
}

model Other {
  @@unique([key(sort: Desc)], map: "k", where: raw("key <> ''"))
}
`;
    expect(partialIndexPredicates(schema)).toEqual(
      new Map([
        ["Message:status,send_at", `status = ANY (ARRAY['queued'::"MessageStatus"])`],
        ["Message:event_id", "event_id IS NOT NULL"],
        ["Other:key", "key <> ''"],
      ]),
    );
  });
});

describe("normalisePredicate", () => {
  it.each([
    ["(agent_key IS NOT NULL)", "agent_key IS NOT NULL"],
    ["((a = 1))", "a = 1"],
    ["(a = 1) AND (b = 2)", "(a = 1) AND (b = 2)"],
    ["((a = 1) OR (b = 2))", "(a = 1) OR (b = 2)"],
    ["status = 'sending'", "status = 'sending'"],
  ])("%s → %s", (printed, normal) => {
    expect(normalisePredicate(printed)).toBe(normal);
  });

  it("keeps null for a full index", () => {
    expect(normalisePredicate(null)).toBeNull();
  });
});

describe("the project's partial indexes", () => {
  // Prisma binds an enum as CAST($1::text AS "…"), which the planner does not fold, so a predicate
  // on an enum column can never be proved from Prisma's queries and the index goes unused
  // (docs/decisions.md "Indexes of messages").
  it("name no enum column in their predicates", async () => {
    const schemaPath = path.resolve(__dirname, "../../../../../prisma/schema.prisma");
    const { datamodel, predicates } = await loadSchema(schemaPath);
    expect(predicates.size).toBeGreaterThan(0);
    for (const [key, predicate] of predicates) {
      const model = datamodel.models.find((m) => m.name === key.split(":")[0])!;
      const enumColumns = model.fields.filter((f) => f.kind === "enum").map((f) => f.dbName ?? f.name);
      expect({
        index: key,
        enums: enumColumns.filter((c) => new RegExp(`\\b${c}\\b`).test(predicate)),
      }).toEqual({
        index: key,
        enums: [],
      });
    }
  });
});
