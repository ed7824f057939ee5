// `npm run client:generate`: writes packages/client/src/generated from the OpenAPI document.
// `--check` writes nothing and exits 1 when a committed file differs from what the document gives;
// `--document <file.json>` generates from that document instead (the client's test uses both).
const fs = require("node:fs");
const path = require("node:path");
const { generateClientFiles, GENERATED_DIR } = require("./client-codegen.cjs");

async function main() {
  const check = process.argv.includes("--check");
  const documentAt = process.argv.indexOf("--document");
  const doc = documentAt < 0 ? undefined : JSON.parse(fs.readFileSync(process.argv[documentAt + 1], "utf8"));
  const files = await generateClientFiles(doc);
  const stale = [];
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(GENERATED_DIR, name);
    const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
    if (current === content) continue;
    stale.push(path.relative(process.cwd(), file));
    if (!check) fs.writeFileSync(file, content);
  }
  if (check && stale.length > 0) {
    console.error(`stale: ${stale.join(", ")}; run 'npm run client:generate'`);
    process.exit(1);
  }
  console.log(stale.length === 0 ? "client up to date" : `wrote ${stale.join(", ")}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
