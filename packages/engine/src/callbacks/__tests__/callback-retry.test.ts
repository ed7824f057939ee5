import {
  CALLBACK_MAX_ATTEMPTS,
  CALLBACK_RETRY_BASE_MS,
  nextCallbackTry,
  nominalCallbackSchedule,
} from "../callback-retry";

const NOW = new Date("2026-03-01T12:00:00.000Z");
const MINUTE = 60_000;

describe("nextCallbackTry", () => {
  it.each([
    [1, 0, 150_000],
    [1, 0.999, 75_075],
    [2, 0, 300_000],
    [9, 0, 150_000 * 256],
  ])("after try %i with jitter %d: %d ms later", (attempts, random, waitMs) => {
    const at = nextCallbackTry({ now: NOW, attempts, baseMs: CALLBACK_RETRY_BASE_MS, random });
    expect(at!.getTime() - NOW.getTime()).toBe(waitMs);
  });

  it("none after the 10th try", () => {
    expect(CALLBACK_MAX_ATTEMPTS).toBe(10);
    expect(nextCallbackTry({ now: NOW, attempts: 10, baseMs: CALLBACK_RETRY_BASE_MS, random: 0 })).toBeNull();
  });
});

describe("nominalCallbackSchedule", () => {
  it("10 tries over about 21 hours (the longest waits)", () => {
    const schedule = nominalCallbackSchedule();
    expect(schedule).toHaveLength(10);
    expect(schedule.slice(0, 4)).toEqual([0, 2.5 * MINUTE, 7.5 * MINUTE, 17.5 * MINUTE]);
    expect(schedule.at(-1)).toBe(150_000 * 511);
    expect(schedule.at(-1)! / 3_600_000).toBeCloseTo(21.29, 2);
  });
});
