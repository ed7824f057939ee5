export interface OrderedRule {
  key: string;
  priority?: number | null;
}

// Priority descending, ties by key ascending in code-unit order (not locale order), so every
// process sorts the same way.
export function compareRules(a: OrderedRule, b: OrderedRule): number {
  const byPriority = (b.priority ?? 0) - (a.priority ?? 0);
  if (byPriority !== 0) return byPriority;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export function sortRules<R extends OrderedRule>(rules: readonly R[]): R[] {
  return [...rules].sort(compareRules);
}
