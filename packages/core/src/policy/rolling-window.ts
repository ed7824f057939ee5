// Rolling-window limits measured on send times, on both sides of the new message (docs/policy.md,
// "Limits": a message scheduled later counts too, so no window holds more than the limit).
//
// Semantics, exactly: a window is a half-open interval [s, s + P) of length P. Adding a message at
// `at` is refused when some window that contains `at` would then hold more than `limit` messages.
// Half-open means two messages exactly P apart never share a window: with "2 per P1D" a third
// message may go out exactly 24 h after the first. A set of points fits in one such window iff
// (latest - earliest) < P, so the fullest window containing `at` starts at `at` itself or at an
// existing send time in (at - P, at]; we try each of those starts and count [start, start + P).

/** Existing send times (ms since epoch) that count, in any order. */
export type SendTimes = readonly number[];

/** Most messages already in one window of `periodSeconds` that would also contain `at`. */
export function busiestWindowAround(sendTimes: SendTimes, at: number, periodSeconds: number): number {
  const period = periodSeconds * 1000;
  const near = sendTimes.filter((t) => t > at - period && t < at + period).sort((a, b) => a - b);
  let busiest = 0;
  // `near` is sorted, so the right edge only moves forward as the left edge does.
  let right = 0;
  const starts = [...near.filter((t) => t <= at), at];
  for (const start of starts) {
    let left = near.findIndex((t) => t >= start);
    if (left < 0) left = near.length;
    if (right < left) right = left;
    while (right < near.length && (near[right] as number) < start + period) right++;
    busiest = Math.max(busiest, right - left);
  }
  return busiest;
}

/** True when one more message at `at` would put more than `limit` into some window of `periodSeconds`. */
export function exceedsRollingLimit(
  sendTimes: SendTimes,
  at: number,
  limit: number,
  periodSeconds: number,
): boolean {
  if (periodSeconds <= 0) return false;
  return busiestWindowAround(sendTimes, at, periodSeconds) + 1 > limit;
}
