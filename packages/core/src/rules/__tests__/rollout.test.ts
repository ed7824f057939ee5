import { createHash } from "node:crypto";
import { isInRollout, rolloutBucket } from "../rollout";

// Independent computation: hex of the digest, first 8 hex digits as one unsigned number.
function expectedBucket(ruleKey: string, externalId: string): number {
  const hex = createHash("sha256").update(`${ruleKey}:${externalId}`).digest("hex");
  return parseInt(hex.slice(0, 8), 16) % 100;
}

describe("rolloutBucket", () => {
  it.each([
    ["welcome", "user_1", 85],
    ["welcome", "user_2", 43],
    ["promo", "alice", 89],
    ["promo", "bob", 69],
    ["a", "b", 22],
  ])("%s:%s -> %i", (ruleKey, externalId, bucket) => {
    expect(rolloutBucket(ruleKey, externalId)).toBe(bucket);
    expect(expectedBucket(ruleKey, externalId)).toBe(bucket);
  });

  it("agrees with the independent computation for many people, including non-ASCII ids", () => {
    for (const id of ["ü", "用户", "a:b", ...Array.from({ length: 200 }, (_, i) => `p${i}`)]) {
      expect(rolloutBucket("rule.x", id)).toBe(expectedBucket("rule.x", id));
    }
  });
});

describe("isInRollout", () => {
  it.each([
    // bucket of welcome:user_1 is 85
    [85, false],
    [86, true],
    [100, true],
    [0, false],
    [null, true],
    [undefined, true],
  ])("welcome:user_1 at %p%% -> %s", (percent, expected) => {
    expect(isInRollout("welcome", "user_1", percent)).toBe(expected);
  });
});
