// Keys of admin resources (categories, templates, rules, agents): docs/api.md, "Request rules".
export const RESOURCE_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export function isValidResourceKey(key: unknown): key is string {
  return typeof key === "string" && RESOURCE_KEY_PATTERN.test(key);
}
