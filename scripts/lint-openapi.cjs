// `npm run lint:openapi`: lints the OpenAPI document the API serves with Redocly's `recommended`
// rules. The document is split (apps/api/src/openapi/openapi.yaml plus paths/*.yaml, merged by
// load-openapi.ts), so this writes the merged document to a temporary file and lints that; a
// problem's JSON pointer (#/paths/... or #/components/...) names the fragment that holds it.
// Redocly must not reach the network (CI reaches only the npm registry): telemetry and the update
// check are turned off.
require("./register-ts.cjs");
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { loadOpenApiDocument } = require("../apps/api/src/openapi/load-openapi.ts");

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-openapi-"));
const file = path.join(dir, "openapi.json");
fs.writeFileSync(file, `${JSON.stringify(loadOpenApiDocument(), null, 2)}\n`);

const cli = require.resolve("@redocly/cli/bin/cli.js");
const result = spawnSync(process.execPath, [cli, "lint", "--extends=recommended", file], {
  cwd: dir, // no redocly.yaml here: the rules are exactly `recommended`
  stdio: "inherit",
  env: {
    ...process.env,
    REDOCLY_TELEMETRY: "off",
    REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
  },
});
if (result.status === 0) fs.rmSync(dir, { recursive: true, force: true });
else console.error(`merged document kept for reading: ${file}`);
process.exit(result.status ?? 1);
