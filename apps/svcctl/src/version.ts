import fs from "node:fs";
import path from "node:path";

/** The workspace's package.json version (read at run time: the same path from src and from dist). */
export function cliVersion(): string {
  const file = path.resolve(__dirname, "..", "package.json");
  return (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version;
}
