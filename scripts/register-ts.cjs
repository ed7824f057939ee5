// `node -r ./scripts/register-ts.cjs <file.ts>`: runs TypeScript from the working tree without a
// build, as jest does: @svc/* resolves to each workspace's src and .ts files go through swc.
// Used by tests that start child processes and by the benchmarks, so both run the code as it is
// now, not whatever dist/ another build left behind.
const Module = require("node:module");
const path = require("node:path");
const { transformSync } = require("@swc/core");

const ROOT = path.resolve(__dirname, "..");
const PACKAGES = new Set([
  "jinja",
  "core",
  "log",
  "config",
  "store",
  "queue",
  "providers",
  "engine",
  "client",
  "mcp",
  "testkit",
]);
const APPS = new Set(["api", "worker", "svcctl"]);

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const match = /^@svc\/([a-z]+)$/.exec(request);
  if (match && (PACKAGES.has(match[1]) || APPS.has(match[1]))) {
    const dir = PACKAGES.has(match[1]) ? "packages" : "apps";
    return path.join(ROOT, dir, match[1], "src/index.ts");
  }
  return resolve.call(this, request, parent, ...rest);
};

require.extensions[".ts"] = function (module, filename) {
  const source = require("node:fs").readFileSync(filename, "utf8");
  const { code } = transformSync(source, {
    filename,
    sourceMaps: "inline",
    jsc: { parser: { syntax: "typescript" }, target: "es2022" },
    module: { type: "commonjs" },
  });
  module._compile(code, filename);
};
