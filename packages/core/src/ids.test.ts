import { newId, ulid } from "./ids";

describe("ids", () => {
  it("prefixes ids by kind and keeps them sortable within one millisecond", () => {
    const ids = Array.from({ length: 1000 }, () => newId("message", 1_700_000_000_000));
    expect(ids[0]).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("never goes backwards, even when the clock does", () => {
    const later = ulid(4_000_000_000_000);
    const clockStepBack = ulid(3_000_000_000_000);
    expect(clockStepBack > later).toBe(true);
    expect(ulid(4_000_000_000_001).slice(0, 10) > later.slice(0, 10)).toBe(true);
  });
});
