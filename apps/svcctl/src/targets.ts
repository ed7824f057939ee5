// Where a URL points, without credentials: error lines must never carry a password.

/** `postgresql://u:secret@db:5432/svc` → `db:5432/svc`; `redis://:pw@cache:6379/2` → `cache:6379/2`. */
export function describeTarget(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url);
    const path = parsed.pathname.replace(/^\//, "");
    return `${parsed.hostname}:${parsed.port || defaultPort}${path ? `/${decodeURIComponent(path)}` : ""}`;
  } catch {
    return "(unparsable URL)";
  }
}

export const describeDatabase = (url: string) => describeTarget(url, 5432);
export const describeRedis = (url: string) => describeTarget(url, 6379);
