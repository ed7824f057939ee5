// How fast svc finds and restarts work a fault stranded (docs/operations.md "Recovery guarantees").
// Two settings drive every recovery timer, so the guarantee can be read off one function:
// `worker.lease_seconds` (how long a dead worker's claim stays taken) and `worker.sweep_seconds`
// (how often the recovery sweeps run and the job schedulers are re-asserted).

export interface RecoverySettings {
  lease_seconds: number;
  sweep_seconds: number;
}

export interface RecoveryTimings {
  /** A claim whose send is still running is renewed this often (a third of the lease). */
  leaseRenewMs: number;
  leaseMs: number;
  /** Period of the recovery sweeps, and of re-asserting the job schedulers that drive them. */
  sweepEveryMs: number;
  /** An event still `pending` this long after it was accepted has lost its ingest job. */
  pendingEventGraceMs: number;
  /** A `queued` message due this long ago has lost its delivery job. */
  overdueQueuedGraceMs: number;
  /** A message waiting this long for screening has lost its screening job. */
  screeningWaitGraceMs: number;
}

export function recoveryTimings(settings: RecoverySettings): RecoveryTimings {
  const sweep = settings.sweep_seconds * 1000;
  const lease = settings.lease_seconds * 1000;
  return {
    leaseMs: lease,
    leaseRenewMs: Math.max(100, Math.floor(lease / 3)),
    sweepEveryMs: sweep,
    // Longer than a healthy backlog's wait: re-enqueueing is harmless (stable job ids) but not free.
    pendingEventGraceMs: 2 * sweep,
    overdueQueuedGraceMs: 3 * sweep,
    screeningWaitGraceMs: 2 * sweep,
  };
}

export type Fault = "worker_killed" | "redis_lost" | "postgres_sessions_terminated";

/**
 * The longest a stranded row waits, after the fault ends, until a job for it exists again
 * (processing time comes on top). Each term is "eligible after" + "the next sweep run":
 * - a dead worker's claim is free one lease after its last renewal, then the reclaim sweep runs;
 *   its events and queued messages pass their grace, then the next sweep;
 * - after Redis comes back without its jobs, the schedulers are re-asserted within one period,
 *   then pending events and queued messages pass their grace;
 * - a send whose final write met a terminated session keeps its claim until the lease runs out.
 */
export function recoveryBoundMs(settings: RecoverySettings, fault: Fault): number {
  const t = recoveryTimings(settings);
  const claims = t.leaseMs + t.sweepEveryMs;
  const lostJobs =
    Math.max(t.pendingEventGraceMs, t.overdueQueuedGraceMs, t.screeningWaitGraceMs) + t.sweepEveryMs;
  switch (fault) {
    case "worker_killed":
      return Math.max(claims, lostJobs);
    case "redis_lost":
      return t.sweepEveryMs + lostJobs;
    case "postgres_sessions_terminated":
      return claims;
  }
}

/**
 * Whether a run may start a provider call on its claim (docs/operations.md "A claim that may have
 * lapsed"). Its process last knew the lease valid until `validUntilMs`; renewals come every third
 * of the lease, so less than a third left means two renewals failed in a row (the database was
 * unreachable, or the process stalled), and another worker may take the claim over once it runs
 * out. Such a run sends nothing and gives the message back to its job's retry.
 */
export function claimSafeToSend(validUntilMs: number, nowMs: number, leaseMs: number): boolean {
  return validUntilMs - nowMs >= leaseMs / 3;
}
