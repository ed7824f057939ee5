// Generates the Prisma client offline. Prisma's CLI wants to download its native schema engine
// even for `generate`, which these machines cannot; pointing PRISMA_SCHEMA_ENGINE_BINARY at a
// stand-in that refuses to run skips the download (generate never calls it).
const { execFileSync } = require("node:child_process");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(root, "scripts", "no-schema-engine.sh");
execFileSync(process.execPath, [require.resolve("prisma/build/index.js", { paths: [root] }), "generate"], {
  cwd: root,
  env,
  stdio: ["ignore", "ignore", "inherit"],
});
