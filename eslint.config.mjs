import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

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
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  {
    // The pure domain package must stay free of infrastructure (docs/architecture.md, "Packages").
    files: ["packages/core/src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: ["@prisma/*", "bullmq", "ioredis", "express", "winston", "@svc/store", "@svc/queue"] },
      ],
      "no-restricted-properties": ["error", { object: "process", property: "env" }],
    },
  },
  {
    // Plain CommonJS scripts run by Node (build helpers, benchmark references, test fixtures).
    files: ["**/*.js", "**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { ...globals.node } },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
