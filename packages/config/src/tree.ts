// Plain-object helpers for layering file, environment and defaults.

export type Tree = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Tree {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

// defineProperty, not assignment: a key named `__proto__` must stay data, never a prototype.
function put(target: Tree, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Objects merge key by key; anything else (scalars, lists, null) in `override` replaces. */
export function mergeTrees(base: Tree, override: Tree): Tree {
  const merged: Tree = {};
  for (const [key, value] of Object.entries(base)) put(merged, key, value);
  for (const [key, value] of Object.entries(override)) {
    const current = merged[key];
    put(merged, key, isPlainObject(current) && isPlainObject(value) ? mergeTrees(current, value) : value);
  }
  return merged;
}

export function setPath(tree: Tree, path: readonly string[], value: unknown): void {
  let node = tree;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      put(node, key, value);
      return;
    }
    const next = node[key];
    if (isPlainObject(next)) {
      node = next;
    } else {
      const child: Tree = {};
      put(node, key, child);
      node = child;
    }
  });
}
