import { encodeRandom, newId, ulid } from "../ids";

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

  it("encodes 80 random bits exactly as one 80-bit number in Crockford base32", () => {
    // The oracle: the whole number at once with BigInt.
    const oracle = (bytes: Uint8Array): string => {
      let bits = 0n;
      for (const b of bytes) bits = (bits << 8n) | BigInt(b);
      let out = "";
      for (let i = 0; i < 16; i++) {
        out = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"[Number(bits & 31n)] + out;
        bits >>= 5n;
      }
      return out;
    };
    const cases = [
      new Uint8Array(10),
      new Uint8Array(10).fill(255),
      Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
    ];
    for (let i = 0; i < 2000; i++)
      cases.push(Uint8Array.from({ length: 10 }, () => Math.floor(Math.random() * 256)));
    for (const bytes of cases) expect(encodeRandom(bytes)).toBe(oracle(bytes));
    expect(encodeRandom(new Uint8Array(10).fill(255))).toBe("ZZZZZZZZZZZZZZZZ");
  });
});
