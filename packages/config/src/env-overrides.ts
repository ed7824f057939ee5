// Environment overrides: `SVC__SECTION__KEY=value` sets `section.key` (lower-cased, `__` per level),
// the value read as a YAML scalar; `PORT`, `DATABASE_URL` and `REDIS_URL` work as on any platform.
import YAML from "yaml";
import { ConfigError } from "./config-error";
import { setPath, type Tree } from "./tree";

export type Env = Readonly<Record<string, string | undefined>>;

export const ENV_PREFIX = "SVC__";

// The conventional variables come first so an explicit `SVC__…` of the same key wins.
export const CONVENTIONAL_VARIABLES: Record<string, readonly string[]> = {
  PORT: ["api", "port"],
  DATABASE_URL: ["database", "url"],
  DATABASE_DIRECT_URL: ["database", "direct_url"],
  REDIS_URL: ["redis", "url"],
  REDIS_CLUSTER_NODES: ["redis", "cluster", "nodes"],
};

// Conventional variables holding a list, written comma-separated as platforms do
// (`REDIS_CLUSTER_NODES=redis://a:7000,redis://b:7000`).
const LIST_VARIABLES: ReadonlySet<string> = new Set(["REDIS_CLUSTER_NODES"]);

const commaList = (raw: string): string[] =>
  raw
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

export interface EnvSource {
  path: readonly string[];
  variable: string;
}

export interface EnvOverrides {
  tree: Tree;
  /** Which variable set which key, in the order applied (later wins). */
  sources: EnvSource[];
}

/** `'["sms"]'` → list, `9000` → number, `true` → boolean; text that is not valid YAML stays text. */
export function parseEnvValue(raw: string): unknown {
  try {
    return YAML.parse(raw);
  } catch {
    return raw;
  }
}

function overridePath(variable: string): string[] {
  const segments = variable.slice(ENV_PREFIX.length).split("__");
  if (segments.some((segment) => segment === "")) {
    throw new ConfigError([
      { path: "", message: `${variable}: empty key segment (use one "__" between keys)` },
    ]);
  }
  return segments.map((segment) => segment.toLowerCase());
}

export function readEnvOverrides(env: Env): EnvOverrides {
  const sources: EnvSource[] = [];
  for (const [variable, path] of Object.entries(CONVENTIONAL_VARIABLES)) {
    if (env[variable]) sources.push({ path, variable });
  }
  const prefixed = Object.keys(env)
    .filter((variable) => variable.startsWith(ENV_PREFIX) && env[variable])
    .map((variable) => ({ variable, path: overridePath(variable) }))
    // Shallow keys first, so `SVC__API__PORT` refines what `SVC__API='{…}'` set.
    .sort((a, b) => a.path.length - b.path.length || a.variable.localeCompare(b.variable));
  sources.push(...prefixed);

  const tree: Tree = {};
  for (const { path, variable } of sources) {
    const raw = env[variable] as string;
    setPath(tree, path, LIST_VARIABLES.has(variable) ? commaList(raw) : parseEnvValue(raw));
  }
  return { tree, sources };
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((key, i) => path[i] === key);
}

/**
 * The variable that set `path` (or the part of the tree holding it). For keys the file does not
 * hold, also a variable that set something below it (`SVC__APU__PORT` for the unknown key `apu`) or
 * beside it in an object only the environment made (`SVC__CHANNELS__SMS__URL` without a provider).
 */
export function envSourceOf(
  sources: readonly EnvSource[],
  path: readonly (string | number)[],
  inFile: (path: readonly string[]) => boolean = () => false,
): string | undefined {
  const dotted = path.map(String);
  let found: EnvSource | undefined;
  for (const source of sources) {
    if (startsWith(dotted, source.path) && (!found || source.path.length >= found.path.length))
      found = source;
  }
  if (found) return found.variable;
  if (inFile(dotted)) return undefined;
  const below = sources.find((source) => startsWith(source.path, dotted));
  if (below) return below.variable;
  const parent = dotted.slice(0, -1);
  if (parent.length === 0 || inFile(parent)) return undefined;
  return sources.find((source) => startsWith(source.path, parent))?.variable;
}
