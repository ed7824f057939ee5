// What `svcctl broadcasts watch` draws (docs/broadcasts.md "svcctl"): a bar of processed of
// total, the rate over the last samples, the time left at that rate, and the counts per status.
// Pure, so it is tested without a terminal.

import { barOf } from "../../progress-bar";

export interface ProgressSample {
  /** Milliseconds (the clock of the watcher). */
  at: number;
  processed: number;
}

export interface BroadcastProgress {
  status: string;
  total: number | null;
  processed: number;
  skipped: number;
  counts: Record<string, number>;
}

/** Samples older than this do not count towards the rate. */
const RATE_WINDOW_MS = 5_000;

/** Recipients per second over the recent samples (oldest to newest); null before two exist. */
export function recentRate(samples: readonly ProgressSample[]): number | null {
  const last = samples[samples.length - 1];
  if (!last) return null;
  const first = samples.find((s) => last.at - s.at <= RATE_WINDOW_MS) ?? last;
  if (last.at === first.at) return null;
  return ((last.processed - first.processed) * 1000) / (last.at - first.at);
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

export function progressLine(progress: BroadcastProgress, rate: number | null): string {
  const total = progress.total;
  const fraction = total ? Math.min(1, progress.processed / total) : 0;
  const bar = barOf(fraction);
  const of = total === null ? `${progress.processed} of ?` : `${progress.processed}/${total}`;
  const parts = [`${bar} ${of} ${Math.floor(fraction * 100)}%`, progress.status];
  if (rate !== null) parts.push(`${rate.toFixed(rate < 10 ? 1 : 0)}/s`);
  if (rate && total !== null && progress.status === "running")
    parts.push(`${formatDuration((total - progress.processed) / rate)} left`);
  const counts = Object.entries(progress.counts)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${status} ${n}`);
  if (progress.skipped > 0) counts.push(`skipped ${progress.skipped}`);
  if (counts.length > 0) parts.push(counts.join(" "));
  return parts.join(" · ");
}

export const isFinished = (status: string): boolean =>
  status === "completed" || status === "cancelled" || status === "failed";
