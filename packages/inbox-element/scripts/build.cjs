// Builds the <svc-inbox> module (docs/inbox.md "The component") with esbuild: one minified ES
// module, dist/inbox.js, which the API serves at GET /inbox.js. Run by `npm run build` and after
// `npm ci` (postinstall), so tests and `npm start` find it without an extra step.
const { renameSync, mkdirSync, readFileSync } = require("node:fs");
const path = require("node:path");
const { gzipSync } = require("node:zlib");

const ROOT = path.resolve(__dirname, "..");
const OUTFILE = path.join(ROOT, "dist", "inbox.js");

/** Builds into a temporary file and renames it, so a reader never sees half a bundle. */
async function buildInboxElement(outfile = OUTFILE) {
  const esbuild = require("esbuild");
  mkdirSync(path.dirname(outfile), { recursive: true });
  const temporary = `${outfile}.${process.pid}.tmp`;
  await esbuild.build({
    entryPoints: [path.join(ROOT, "src", "index.ts")],
    bundle: true,
    format: "esm",
    minify: true,
    target: ["es2020", "chrome90", "firefox90", "safari16"],
    legalComments: "none",
    outfile: temporary,
    logLevel: "warning",
  });
  renameSync(temporary, outfile);
  const bytes = readFileSync(outfile);
  return { file: outfile, bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
}

module.exports = { buildInboxElement, OUTFILE };

if (require.main === module) {
  buildInboxElement().then(
    ({ file, bytes, gzipBytes }) =>
      console.log(
        `inbox element: ${path.relative(process.cwd(), file)} ${bytes} bytes, ${gzipBytes} gzipped`,
      ),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
