import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * `SVC_SECRET_KEY` derives every link token. Only the single-process `npm start` may run without it
 * (docs/configuration.md, "Secrets"): it then creates `./.svc/secret_key` once, mode 0600, and
 * keeps using it, so links survive restarts. Split deployments must set the variable.
 */
export function loadOrCreateSecretKey(cwd: string): { key: string; created: boolean; file: string } {
  const file = path.join(cwd, ".svc", "secret_key");
  if (existsSync(file)) return { key: readFileSync(file, "utf8").trim(), created: false, file };
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString("base64url");
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return { key, created: true, file };
}
