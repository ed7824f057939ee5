// Where a URL points, without credentials: error lines must never carry a password.

/** `postgresql://u:secret@db:5432/svc` → `db:5432/svc`; `redis://:pw@cache:6379/2` → `cache:6379/2`. */
function describeTarget(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url);
    const path = parsed.pathname.replace(/^\//, "");
    return `${parsed.hostname}:${parsed.port || defaultPort}${path ? `/${decodeURIComponent(path)}` : ""}`;
  } catch {
    return "(unparsable URL)";
  }
}

export const describeDatabase = (url: string) => describeTarget(url, 5432);
/** One server by its URL; a cluster by its first seed and how many; Sentinel by its group and sentinels. */
export function describeRedis(redis: {
  url: string;
  cluster?: { nodes: readonly string[] } | null;
  sentinel?: { name: string; nodes: readonly string[] } | null;
}): string {
  if (redis.cluster) {
    const more = redis.cluster.nodes.length - 1;
    return `the Redis Cluster at ${describeTarget(redis.cluster.nodes[0]!, 6379)}${more > 0 ? ` (+${more} seeds)` : ""}`;
  }
  if (redis.sentinel)
    return `the primary "${redis.sentinel.name}" of the sentinels at ${redis.sentinel.nodes.map((n) => describeTarget(n, 26379)).join(", ")}`;
  return describeTarget(redis.url, 6379);
}
