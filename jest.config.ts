/** @jest-config-loader ts-node */
/** @jest-config-loader-options {"transpileOnly": true} */
import type { Config } from "jest";

// One jest run covers every workspace. Tests import workspace packages from source (no build
// step), transpiled by swc; `npm run typecheck` is where types are checked.
const config: Config = {
  testEnvironment: "node",
  roots: ["<rootDir>/apps", "<rootDir>/packages", "<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": [
      "@swc/jest",
      { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } },
    ],
    // ESM-only dependencies (secretlint, docs/screening.md "The secret check"): Node loads them with
    // require(esm); jest's own loader cannot, so they are compiled to CommonJS here.
    "/node_modules/@secretlint/.+\\.js$": [
      "@swc/jest",
      { jsc: { target: "es2022" }, module: { type: "commonjs" } },
    ],
  },
  transformIgnorePatterns: ["/node_modules/(?!@secretlint/)"],
  moduleNameMapper: {
    "^@svc/(jinja|core|log|config|store|queue|providers|engine|client|mcp|testkit)$":
      "<rootDir>/packages/$1/src",
    "^@svc/(api|worker|svcctl)$": "<rootDir>/apps/$1/src",
  },
  testPathIgnorePatterns: ["/node_modules/", "/dist/"],
  setupFilesAfterEnv: ["<rootDir>/test/setup/close-render-pools.ts"],
  // With SVC_TEST_FLEET=1: a Redis Cluster and PgBouncer for the run (docs/development.md).
  globalSetup: "<rootDir>/packages/testkit/src/fleet/global-setup.ts",
  globalTeardown: "<rootDir>/packages/testkit/src/fleet/global-teardown.ts",
  maxWorkers: 2,
  // `npm test` runs the files one after another (they share the test servers' load) in one worker
  // process, which jest replaces once it holds more than this after a file: module registries of
  // 236 files in one process otherwise grow past Node's heap limit (docs/development.md).
  workerIdleMemoryLimit: "1536MB",
  testTimeout: 30000,
};

export default config;
