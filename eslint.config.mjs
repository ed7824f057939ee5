import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";
import { readFileSync } from "node:fs";
import { URL } from "node:url";

// Prisma's model delegates (`prisma.message`, `tx.recipient`…), one per model of the schema.
const PRISMA_DELEGATES = [
  ...readFileSync(new URL("./prisma/schema.prisma", import.meta.url), "utf8").matchAll(/^model (\w+)/gm),
]
  .map(([, model]) => model.charAt(0).toLowerCase() + model.slice(1))
  .join("|");

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "**/node_modules/**",
      "packages/store/src/generated/**",
      "packages/client/src/generated/**",
      "coverage/**",
      "test-output/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
    },
  },
  {
    // The template language extends nunjucks' lexer, parser, compiler and runtime, which ship
    // without types (packages/jinja/src/nunjucks.d.ts): `any` is allowed there, and only there.
    files: ["packages/jinja/src/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // The pure packages must stay free of infrastructure (docs/architecture.md, "Packages").
    files: ["packages/core/src/**/*.ts", "packages/jinja/src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            "@prisma/*",
            "pg",
            "pg-*",
            "bullmq",
            "ioredis",
            "express",
            "winston",
            "@svc/store",
            "@svc/queue",
          ],
        },
      ],
      "no-restricted-properties": ["error", { object: "process", property: "env" }],
    },
  },
  {
    // Every SQL statement lives in packages/store (docs/architecture.md "Packages"): elsewhere no
    // database library, no raw statement and no bare transaction (the store's `$transaction`
    // retries serialisation failures and deadlocks; `readOnlyTransaction` for reads that must not
    // write). Tests, the testkit and benchmarks set up and inspect databases directly.
    files: ["packages/*/src/**/*.ts", "apps/*/src/**/*.ts"],
    // (packages/core and packages/jinja have a stricter list of their own, above.)
    ignores: [
      "packages/store/**",
      "packages/testkit/**",
      "packages/core/**",
      "packages/jinja/**",
      "**/__tests__/**",
      "**/*.test.ts",
    ],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@prisma/*", "prisma", "pg", "pg-pool", "pg-*"],
              message: "Database access lives in packages/store: add a function there.",
            },
          ],
          // The Prisma client's own types: outside the store code holds opaque handles
          // (packages/store/src/transaction.ts), which only the store's functions can use.
          paths: [
            {
              name: "@svc/store",
              importNames: ["PrismaClient", "PrismaClientOrTransaction", "TransactionClient"],
              message:
                "Outside the store, hold a Database, RootDatabase or Transaction handle and pass it to store functions.",
            },
          ],
        },
      ],
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "MemberExpression[property.name=/^\\$(queryRaw|executeRaw|queryRawUnsafe|executeRawUnsafe|transaction)$/]",
          message:
            "SQL and transactions live in packages/store: use a store function, its $transaction or readOnlyTransaction.",
        },
        {
          // A model delegate reached on a client (`prisma.message.findMany`, `deps.prisma.rule`,
          // `tx.recipient`): a statement outside the store, whatever method follows.
          selector: `MemberExpression[property.name=/^(${PRISMA_DELEGATES})$/]:matches([object.name=/^(prisma|tx)$/], [object.property.name=/^(prisma|tx)$/])`,
          message: "Statements live in packages/store: add a function to its repository for this aggregate.",
        },
      ],
    },
  },
  {
    // Plain CommonJS scripts run by Node (build helpers, benchmark references, test fixtures).
    files: ["**/*.js", "**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { ...globals.node } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
