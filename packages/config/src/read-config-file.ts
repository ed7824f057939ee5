// Finds and reads the YAML configuration file: an explicit path, else `SVC_CONFIG`, else `svc.yaml`
// in the working directory when present; none of these means built-in defaults only.
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { ConfigError } from "./config-error";
import type { Env } from "./env-overrides";
import { isPlainObject, type Tree } from "./tree";

export const DEFAULT_CONFIG_FILE = "svc.yaml";

export interface ConfigFile {
  path: string;
  values: Tree;
}

export function resolveConfigPath(options: { env: Env; cwd: string; file?: string }): string | null {
  const explicit = options.file || options.env.SVC_CONFIG;
  if (explicit) {
    const resolved = path.resolve(options.cwd, explicit);
    if (!fs.existsSync(resolved)) {
      const how = options.file ? "" : " (SVC_CONFIG)";
      throw new ConfigError([{ path: "", message: `configuration file not found: ${resolved}${how}` }]);
    }
    return resolved;
  }
  const fallback = path.join(options.cwd, DEFAULT_CONFIG_FILE);
  return fs.existsSync(fallback) ? fallback : null;
}

export function readConfigFile(filePath: string): ConfigFile {
  let parsed: unknown;
  try {
    parsed = YAML.parse(fs.readFileSync(filePath, "utf8"));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError([{ path: "", message: `cannot read ${filePath}: ${reason}` }]);
  }
  // An empty file (or one holding only comments) is a valid "use the defaults".
  if (parsed === null || parsed === undefined) return { path: filePath, values: {} };
  if (!isPlainObject(parsed)) {
    throw new ConfigError([{ path: "", message: `${filePath} must hold a mapping of sections` }]);
  }
  return { path: filePath, values: parsed };
}
