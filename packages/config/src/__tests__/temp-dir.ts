import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const made: string[] = [];

/** A fresh directory, with `svc.yaml` (or `fileName`) holding `yaml` when given. */
export function tempDir(yaml?: string, fileName = "svc.yaml"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-config-"));
  made.push(dir);
  if (yaml !== undefined) fs.writeFileSync(path.join(dir, fileName), yaml);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
