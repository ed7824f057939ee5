import { claimSafeToSend, recoveryBoundMs, recoveryTimings, type Fault } from "../recovery-timings";

const DEFAULTS = { lease_seconds: 30, sweep_seconds: 10 };
const FAULTS: Fault[] = ["worker_killed", "redis_lost", "postgres_sessions_terminated"];

describe("recovery timings", () => {
  it("renews a claim three times per lease and derives the graces from the sweep period", () => {
    expect(recoveryTimings(DEFAULTS)).toEqual({
      leaseMs: 30_000,
      leaseRenewMs: 10_000,
      sweepEveryMs: 10_000,
      pendingEventGraceMs: 20_000,
      overdueQueuedGraceMs: 30_000,
      screeningWaitGraceMs: 20_000,
    });
  });

  it.each([
    ["worker_killed", 40_000],
    ["redis_lost", 50_000],
    ["postgres_sessions_terminated", 40_000],
  ] as const)("at the defaults, %s strands nothing longer than %d ms", (fault, bound) => {
    expect(recoveryBoundMs(DEFAULTS, fault)).toBe(bound);
  });

  it("leaves at least 10 s of the 60 s guarantee for the work itself at the defaults", () => {
    for (const fault of FAULTS) expect(recoveryBoundMs(DEFAULTS, fault)).toBeLessThanOrEqual(50_000);
  });

  it("grows with the lease and the sweep period", () => {
    expect(recoveryBoundMs({ lease_seconds: 300, sweep_seconds: 10 }, "worker_killed")).toBe(310_000);
    expect(recoveryBoundMs({ lease_seconds: 4, sweep_seconds: 1 }, "redis_lost")).toBe(5_000);
  });
});

describe("a claim that may have lapsed", () => {
  const LEASE = 30_000;
  const now = 1_000_000;
  it.each([
    ["just claimed (a full lease left)", now + 30_000, true],
    ["one renewal missed (two thirds left)", now + 20_000, true],
    ["exactly a third left", now + 10_000, true],
    ["two renewals missed (less than a third left)", now + 9_999, false],
    ["lease already run out", now - 1, false],
  ])("%s: safe to send %s", (_case, validUntil, safe) => {
    expect(claimSafeToSend(validUntil as number, now, LEASE)).toBe(safe);
  });
});
