import { advisoryLockKey, LockNamespace } from "../locks";
import { MIGRATION_LOCK_ID } from "../migrations";

describe("advisoryLockKey", () => {
  it("is stable: namespace tag in the top 16 bits, SHA-256 prefix below", () => {
    expect(advisoryLockKey(LockNamespace.recipient, "alice")).toBe(329681803509518n);
    expect(advisoryLockKey(LockNamespace.recipient, "alice") >> 48n).toBe(1n);
  });

  it.each(["", "alice", "bob", "ünïcode", "x".repeat(300)])(
    "keeps %j inside the recipient range, away from the migration lock",
    (key) => {
      const lockKey = advisoryLockKey(LockNamespace.recipient, key);
      expect(lockKey).toBeGreaterThanOrEqual(1n << 48n);
      expect(lockKey).toBeLessThan(2n << 48n);
      expect(lockKey).not.toBe(BigInt(MIGRATION_LOCK_ID));
    },
  );

  it("gives different keys to different recipients", () => {
    const keys = new Set(
      Array.from({ length: 1000 }, (_, i) => advisoryLockKey(LockNamespace.recipient, `r${i}`)),
    );
    expect(keys.size).toBe(1000);
  });
});
