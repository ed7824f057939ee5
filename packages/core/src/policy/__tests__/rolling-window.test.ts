import { busiestWindowAround, exceedsRollingLimit } from "../rolling-window";

const H = 3_600_000;
const DAY = 86_400;
const AT = Date.parse("2024-01-15T12:00:00Z");

describe("exceedsRollingLimit (half-open windows [s, s+P) containing the new send time)", () => {
  test.each<[string, number[], number, number, boolean]>([
    // [why, existing offsets from AT in ms, limit, period s, exceeded]
    ["nothing sent", [], 1, DAY, false],
    ["limit 0 refuses everything", [], 0, DAY, true],
    ["one earlier, limit 2", [-H], 2, DAY, false],
    ["two earlier within a day, limit 2", [-H, -2 * H], 2, DAY, true],
    ["two later (scheduled) within a day, limit 2: both sides count", [H, 2 * H], 2, DAY, true],
    ["one before and one after, 2 h apart, limit 2", [-H, H], 2, DAY, true],
    ["23 h before and 23 h after: no single day holds all three", [-23 * H, 23 * H], 2, DAY, false],
    ["12 h before and 12 h after: exactly 24 h apart never share a window", [-12 * H, 12 * H], 2, DAY, false],
    [
      "12 h before and 1 ms short of 12 h after: one window holds all three",
      [-12 * H, 12 * H - 1],
      2,
      DAY,
      true,
    ],
    ["exactly one period earlier no longer counts", [-24 * H, -H], 2, DAY, false],
    ["exactly one period later does not count", [24 * H, H], 2, DAY, false],
    ["same instant counts", [0], 1, DAY, true],
    ["unsorted input", [5 * H, -3 * H, 30 * H, -30 * H], 2, DAY, true],
    [
      "5 per week: five within one week around it (3 before, 2 after)",
      [-5 * 24 * H, -3 * 24 * H, -H, 24 * H, 36 * H, 8 * 24 * H],
      5,
      7 * DAY,
      true,
    ],
    [
      "5 per week: only four share a week with it",
      [-6 * 24 * H, -3 * 24 * H, -H, 2 * 24 * H, 8 * 24 * H],
      5,
      7 * DAY,
      false,
    ],
    [
      "5 per week: four spread over 13 days",
      [-6 * 24 * H, -3 * 24 * H, 3 * 24 * H, 6 * 24 * H],
      5,
      7 * DAY,
      false,
    ],
  ])("%s", (_why, offsets, limit, period, exceeded) => {
    expect(
      exceedsRollingLimit(
        offsets.map((o) => AT + o),
        AT,
        limit,
        period,
      ),
    ).toBe(exceeded);
  });
});

test.each<[number[], number]>([
  [[], 0],
  [[-23 * H, 23 * H], 1],
  [[-H, H], 2],
  [[-20 * H, -10 * H, 3 * H, 5 * H], 3],
])("busiestWindowAround(%j) = %d", (offsets, busiest) => {
  expect(
    busiestWindowAround(
      offsets.map((o) => AT + o),
      AT,
      DAY,
    ),
  ).toBe(busiest);
});
