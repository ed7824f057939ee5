import { newId, ulid } from "./ids";

describe("ids", () => {
  it("prefixes ids by kind and keeps them sortable within one millisecond", () => {
    const ids = Array.from({ length: 1000 }, () => newId("message", 1_700_000_000_000));
    expect(ids[0]).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("sorts by time across milliseconds", () => {
    expect(ulid(2_000_000_000_000) > ulid(1_000_000_000_000 + 5)).toBe(true);
  });
});
