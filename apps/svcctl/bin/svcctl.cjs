#!/usr/bin/env node
// The `svcctl` command (`npx svcctl …` in the repository, `npm run svcctl -- …`, or `svcctl` when
// installed). In a checkout with the development tools it runs the TypeScript sources as they are
// now (through scripts/register-ts.cjs, as the tests do), so it is never a stale build; in a
// production install (no sources or no @swc/core) it runs the build in dist/.
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const sources = path.join(root, "src", "main.ts");
const register = path.resolve(root, "..", "..", "scripts", "register-ts.cjs");

function canRunSources() {
  if (!fs.existsSync(sources) || !fs.existsSync(register)) return false;
  try {
    require.resolve("@swc/core");
    return true;
  } catch {
    return false;
  }
}

if (canRunSources()) {
  require(register);
  require(sources);
} else {
  require(path.join(root, "dist", "main.js"));
}
