import { readdirSync } from "node:fs";
import path from "node:path";

// One test layout (docs/development.md "Where tests live"): inside apps/ and packages/, a test file
// sits in a `__tests__/` folder beside the code it tests; tests that span packages live in test/.

const ROOT = path.resolve(__dirname, "..");
const SKIP = new Set(["node_modules", "dist", "generated", ".git"]);

function testFilesOutsideTestsFolders(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...testFilesOutsideTestsFolders(full));
    else if (/\.test\.[cm]?[jt]sx?$/.test(entry.name) && path.basename(dir) !== "__tests__")
      found.push(path.relative(ROOT, full));
  }
  return found;
}

test("every test file under apps/ and packages/ is in a __tests__ folder", () => {
  const misplaced = ["apps", "packages"].flatMap((top) => testFilesOutsideTestsFolders(path.join(ROOT, top)));
  expect(misplaced).toEqual([]);
});

test("the walk reaches the packages' tests (a wrong root would pass vacuously)", () => {
  const all = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce(
      (n, e) =>
        SKIP.has(e.name)
          ? n
          : e.isDirectory()
            ? n + all(path.join(dir, e.name))
            : n + (/\.test\.ts$/.test(e.name) ? 1 : 0),
      0,
    );
  expect(all(path.join(ROOT, "packages"))).toBeGreaterThan(100);
});
