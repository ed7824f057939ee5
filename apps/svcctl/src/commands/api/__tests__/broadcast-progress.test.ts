import { formatDuration, progressLine, recentRate } from "../broadcast-progress";

describe("the watch line", () => {
  const counts = { queued: 10, sent: 480, suppressed: 10, failed: 0 };

  it("shows the bar, processed of total, rate, time left and the counts that are not zero", () => {
    expect(progressLine({ status: "running", total: 1000, processed: 500, skipped: 2, counts }, 50)).toBe(
      "[###############---------------] 500/1000 50% · running · 50/s · 10s left · queued 10 sent 480 suppressed 10 skipped 2",
    );
  });

  it("a filter whose total is not known yet, before any rate", () => {
    expect(progressLine({ status: "running", total: null, processed: 0, skipped: 0, counts: {} }, null)).toBe(
      "[------------------------------] 0 of ? 0% · running",
    );
  });

  it("rate over the samples of the last five seconds", () => {
    const samples = [
      { at: 0, processed: 0 },
      { at: 4_000, processed: 100 },
      { at: 6_000, processed: 200 },
      { at: 8_000, processed: 300 },
    ];
    expect(recentRate(samples)).toBe(50);
    expect(recentRate(samples.slice(0, 1))).toBeNull();
  });

  it.each([
    [0.4, "0s"],
    [59, "59s"],
    [61, "1m01s"],
    [3_700, "1h01m"],
  ])("%s seconds read %s", (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});
