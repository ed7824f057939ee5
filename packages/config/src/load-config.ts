// Builds the service configuration: defaults < file < environment, validated in one pass, plus the
// secrets (environment only). Pure with respect to process.env: the caller hands in `env`.
import { ConfigError, type ConfigIssue } from "./config-error";
import { envSourceOf, readEnvOverrides, type Env, type EnvSource } from "./env-overrides";
import { readConfigFile, resolveConfigPath } from "./read-config-file";
import { configSchema, type ConfigValues } from "./schema";
import { readSecrets, type Secrets } from "./secrets";
import { isPlainObject, mergeTrees, type Tree } from "./tree";
import { toConfigIssues } from "./zod-issues";

export type SvcConfig = ConfigValues & {
  secrets: Secrets;
  /** The file that was read, or null when only defaults and the environment apply. */
  source: { file: string | null };
};

export interface LoadConfigOptions {
  env: Env;
  cwd: string;
  /** Explicit file path (a CLI flag); wins over SVC_CONFIG. Relative paths start at `cwd`. */
  file?: string;
}

interface Provenance {
  envSources?: readonly EnvSource[];
  file?: string | null;
  fileValues?: Tree;
}

function hasPath(tree: Tree, path: readonly string[]): boolean {
  let node: unknown = tree;
  for (const key of path) {
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return false;
    node = node[key];
  }
  return true;
}

/** Validates a configuration tree given as an object (tests, tools); secrets still come from `env`. */
export function parseConfig(raw: unknown, env: Env = {}): SvcConfig {
  return validate(raw, env, {});
}

// Errors name the key and the variable or file its value came from.
function validate(raw: unknown, env: Env, provenance: Provenance): SvcConfig {
  const result = configSchema.safeParse(raw, { reportInput: true });
  if (!result.success) {
    const issues: ConfigIssue[] = toConfigIssues(result.error.issues).map(({ path, issue }) => {
      const fileValues = provenance.fileValues ?? {};
      const variable = envSourceOf(provenance.envSources ?? [], path.map(String), (keys) =>
        hasPath(fileValues, keys),
      );
      const source = variable ? `set by ${variable}` : provenance.file ? `in ${provenance.file}` : undefined;
      return source ? { ...issue, source } : issue;
    });
    throw new ConfigError(issues);
  }
  return { ...result.data, secrets: readSecrets(env), source: { file: provenance.file ?? null } };
}

export function loadConfig(options: LoadConfigOptions): SvcConfig {
  const filePath = resolveConfigPath(options);
  const fileValues: Tree = filePath ? readConfigFile(filePath).values : {};
  const overrides = readEnvOverrides(options.env);
  return validate(mergeTrees(fileValues, overrides.tree), options.env, {
    envSources: overrides.sources,
    file: filePath,
    fileValues,
  });
}
