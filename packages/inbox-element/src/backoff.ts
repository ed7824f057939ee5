/** Wait before reconnect attempt `n` (0-based): doubling from 1 s to 30 s, with jitter in [50 %, 100 %]. */
export function reconnectDelayMs(attempt: number, random: number): number {
  const ceiling = Math.min(30_000, 1_000 * 2 ** Math.min(attempt, 15));
  return Math.round(ceiling * (0.5 + random / 2));
}

/** Only links a browser may follow safely: http(s), resolved against the page. */
export function safeUrl(url: string | null, base: string): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url, base);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}
