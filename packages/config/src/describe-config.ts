// A copy of the configuration that is safe to log: secrets reduced to "set or not", passwords in
// URLs masked, and any secret-looking setting hidden even if it slipped past validation.
import type { SvcConfig } from "./load-config";
import type { Secrets } from "./secrets";
import { looksLikeSecretKey } from "./secret-keys";
import { isPlainObject } from "./tree";

export const MASK = "***";

// scheme://user:password@host → scheme://user:***@host (the last "@" before the path ends the password).
const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:)[^/?#]*@/i;

export function maskUrlPassword(value: string): string {
  return value.replace(URL_PASSWORD, `$1${MASK}@`);
}

function isGroup(value: unknown): boolean {
  return value !== null && typeof value === "object";
}

function scrub(value: unknown): unknown {
  if (typeof value === "string") return maskUrlPassword(value);
  if (Array.isArray(value)) return value.map(scrub);
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        looksLikeSecretKey(key) && !isGroup(inner) ? MASK : scrub(inner),
      ]),
    );
  }
  return value;
}

export type DescribedConfig = Omit<SvcConfig, "secrets"> & { secrets: Record<keyof Secrets, boolean> };

export function describeConfig(config: SvcConfig): DescribedConfig {
  const { secrets, ...values } = config;
  const present = Object.fromEntries(
    Object.entries(secrets).map(([name, value]) => [name, value !== null]),
  ) as Record<keyof Secrets, boolean>;
  return { ...(scrub(values) as Omit<SvcConfig, "secrets">), secrets: present };
}
