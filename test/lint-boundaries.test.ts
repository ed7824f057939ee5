import { execFileSync } from "node:child_process";
import path from "node:path";

// The boundaries `npm run lint` keeps (eslint.config.mjs, docs/architecture.md "Packages"): every
// SQL statement in packages/store, packages/core and packages/jinja free of I/O, and `any` only in
// packages/jinja. Each rule is shown failing on the code it forbids, where it forbids it, and
// passing where that code belongs. ESLint runs in a process of its own (its config is an ES module,
// which jest's sandbox cannot import), once for every snippet of the file. The snippets are linted,
// not compiled: `Client` stands for a database client.

const ROOT = path.resolve(__dirname, "..");
const LINT_SNIPPETS = `
const { ESLint } = require("eslint");
const cases = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const eslint = new ESLint({ cwd: process.cwd() });
Promise.all(cases.map(async ([code, filePath]) => {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.map((m) => m.ruleId ?? "fatal: " + m.message);
})).then((out) => process.stdout.write(JSON.stringify(out)));
`;

const pending: { code: string; filePath: string }[] = [];
let results: string[][] = [];

/** The rule ids ESLint reports for `code` as if it were the file at `filePath` (after beforeAll). */
function rulesHit(code: string, filePath: string): string[] {
  const index = pending.findIndex((c) => c.code === code && c.filePath === filePath);
  if (index < 0) throw new Error(`snippet not registered: ${filePath}`);
  return results[index]!;
}

/** Registers a snippet to lint (all are linted in one process before the tests). */
function snippet(code: string, filePath: string): [string, string] {
  pending.push({ code, filePath });
  return [code, filePath];
}

beforeAll(() => {
  const out = execFileSync(process.execPath, ["-e", LINT_SNIPPETS], {
    cwd: ROOT,
    input: JSON.stringify(pending.map((c) => [c.code, c.filePath])),
    encoding: "utf8",
  });
  results = JSON.parse(out) as string[][];
}, 60_000);

const ENGINE = "packages/engine/src/some-use-case.ts";
const API = "apps/api/src/routes/some-route.ts";
const STORE = "packages/store/src/repositories/some/some-repository.ts";

const FORBIDDEN: [string, string][] = [
  [
    'import { PrismaClient } from "@prisma/client";\nexport const c = PrismaClient;\n',
    "no-restricted-imports",
  ],
  ['import { Pool } from "pg";\nexport const p = Pool;\n', "no-restricted-imports"],
  ["export const f = (db: Client) => db.$queryRaw`SELECT 1`;\n", "no-restricted-syntax"],
  [
    'export const f = (db: Client) => db.$executeRawUnsafe("SET TRANSACTION READ ONLY");\n',
    "no-restricted-syntax",
  ],
  ["export const f = (db: Client) => db.$transaction(async () => 1);\n", "no-restricted-syntax"],
  // A model delegate on a client: a statement, whichever method follows.
  ["export const f = (prisma: Client) => prisma.message.findMany();\n", "no-restricted-syntax"],
  ["export const f = (deps: { prisma: Client }) => deps.prisma.recipient.count();\n", "no-restricted-syntax"],
  ["export const f = (tx: Client) => tx.outboxEntry;\n", "no-restricted-syntax"],
  // The client's own types: outside the store, code holds the store's opaque handles.
  [
    'import type { PrismaClient } from "@svc/store";\nexport type C = PrismaClient;\n',
    "no-restricted-imports",
  ],
  [
    'import type { TransactionClient } from "@svc/store";\nexport type C = TransactionClient;\n',
    "no-restricted-imports",
  ],
];
// The same property names on anything but a client are not statements.
const NOT_A_CLIENT = snippet(
  "export const f = (ctx: { message: { expiresAt: Date } }) => ctx.message.expiresAt;\n",
  ENGINE,
);
for (const [code] of FORBIDDEN) for (const file of [ENGINE, API]) snippet(code, file);
const IN_STORE = snippet(
  'import { Pool } from "pg";\nexport const f = (db: Client) => [Pool, db.$queryRaw`SELECT 1`, db.$transaction(async () => 1)];\n',
  STORE,
);
const STORE_FUNCTIONS = snippet(
  'import { $transaction, readOnlyTransaction, type Database, type Transaction } from "@svc/store";\nexport const f = [$transaction, readOnlyTransaction];\nexport type H = Database | Transaction;\n',
  ENGINE,
);
const IN_A_TEST = snippet(
  "export const f = (db: Client) => db.$queryRaw`SELECT 1`;\n",
  "packages/engine/src/some/__tests__/some.test.ts",
);
const CORE_LIBRARIES = ["@prisma/client", "pg", "bullmq", "ioredis", "@svc/store"];
const PURE_FILES = ["packages/core/src/policy/x.ts", "packages/jinja/src/language/x.ts"];
for (const library of CORE_LIBRARIES)
  for (const file of PURE_FILES) snippet(`import * as x from "${library}";\nexport const y = x;\n`, file);
const ANY = "export const f = (x: any) => x;\n";
const ANY_FILES = [ENGINE, API, STORE, "packages/core/src/policy/x.ts", "test/some.test.ts"];
for (const file of [...ANY_FILES, "packages/jinja/src/language/x.ts"]) snippet(ANY, file);

describe("SQL lives in packages/store", () => {
  it.each(FORBIDDEN)("fails in the engine and in an app: %s", (code, rule) => {
    expect(rulesHit(code, ENGINE)).toContain(rule);
    expect(rulesHit(code, API)).toContain(rule);
  });

  it("passes the same code in packages/store, and the store's own functions anywhere", () => {
    expect(rulesHit(...IN_STORE)).toEqual([]);
    expect(rulesHit(...STORE_FUNCTIONS)).toEqual([]);
  });

  it("tells a delegate on a client from the same name elsewhere", () => {
    expect(rulesHit(...NOT_A_CLIENT)).toEqual([]);
  });

  it("leaves tests free to set up and inspect their databases", () => {
    expect(rulesHit(...IN_A_TEST)).toEqual([]);
  });
});

describe("packages/core and packages/jinja stay pure", () => {
  it.each(CORE_LIBRARIES)("refuse %s", (library) => {
    for (const file of PURE_FILES)
      expect([file, rulesHit(`import * as x from "${library}";\nexport const y = x;\n`, file)]).toEqual([
        file,
        expect.arrayContaining(["no-restricted-imports"]),
      ]);
  });
});

describe("`any` is packages/jinja's alone", () => {
  it.each(ANY_FILES)("fails in %s", (file) => {
    expect(rulesHit(ANY, file)).toContain("@typescript-eslint/no-explicit-any");
  });

  it("passes in packages/jinja (nunjucks' internals are untyped)", () => {
    expect(rulesHit(ANY, "packages/jinja/src/language/x.ts")).toEqual([]);
  });
});
