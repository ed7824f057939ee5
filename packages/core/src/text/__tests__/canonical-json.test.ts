import { canonicalJson, requestHash } from "../canonical-json";

describe("canonicalJson", () => {
  it.each([
    [{ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }, '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}'],
    [{ a: undefined, b: "x" }, '{"b":"x"}'],
    [[{ b: 2, a: 1 }], '[{"a":1,"b":2}]'],
    ["text", '"text"'],
    [null, "null"],
  ])("%j -> %s", (input, expected) => {
    expect(canonicalJson(input)).toBe(expected);
  });

  it("hashes bodies that differ only in key order alike", () => {
    expect(requestHash({ name: "a", data: { x: 1, y: 2 } })).toBe(
      requestHash({ data: { y: 2, x: 1 }, name: "a" }),
    );
    expect(requestHash({ name: "a" })).toBe(
      "d9d719b27480b55cd4918020e7473e716ed3569c8adafe926cf9b10b4f8ef064",
    );
    expect(requestHash({ name: "a" })).not.toBe(requestHash({ name: "b" }));
    expect(requestHash({ name: "a" })).toMatch(/^[0-9a-f]{64}$/);
  });
});
